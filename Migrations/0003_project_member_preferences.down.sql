-- Reverts 0003_project_member_preferences.

DROP TABLE project_member_preferences;
