-- Votes belong to an app: a status_change reaches the voters its own app recorded, never those of another app.
-- Until now the app was kept as text for the keys' scope only, and expansion read the votes of every app. A vote's
-- app is the event's appId (an app's key always has its own), else the default app; votes recorded without one
-- get the default app, and those of an app deleted since go (nothing of that app is left to reach). The column is
-- NULL only while no default app exists, like a device's; the start-up that defines the default app claims it.
ALTER TABLE feedback_votes ADD COLUMN app_id uuid REFERENCES apps (id) ON DELETE CASCADE;

UPDATE feedback_votes AS v SET app_id = a.id
FROM apps AS a
WHERE a.external_id = v.app_external_id OR (v.app_external_id IS NULL AND a.is_default);

DELETE FROM feedback_votes WHERE app_external_id IS NOT NULL AND app_id IS NULL;

DROP INDEX feedback_votes_user_key;
DROP INDEX feedback_votes_email_key;
ALTER TABLE feedback_votes DROP COLUMN app_external_id;

-- One vote per person, feedback and app; a repeated new_vote keeps the first. These also find a feedback's voters.
CREATE UNIQUE INDEX feedback_votes_user_key
    ON feedback_votes (feedback_id, project_external_id, app_id, voter_user_id) NULLS NOT DISTINCT
    WHERE voter_user_id IS NOT NULL;
CREATE UNIQUE INDEX feedback_votes_email_key
    ON feedback_votes (feedback_id, project_external_id, app_id, voter_email) NULLS NOT DISTINCT
    WHERE voter_email IS NOT NULL;

-- Deleting a user deletes their votes, by id and by email address: these find them.
CREATE INDEX feedback_votes_voter_user ON feedback_votes (voter_user_id) WHERE voter_user_id IS NOT NULL;
CREATE INDEX feedback_votes_voter_email ON feedback_votes (voter_email) WHERE voter_email IS NOT NULL;
CREATE INDEX feedback_votes_app ON feedback_votes (app_id);
