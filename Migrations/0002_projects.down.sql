-- Reverts 0002_projects: removes project members and projects.

DROP TABLE project_members;
DROP TABLE projects;
