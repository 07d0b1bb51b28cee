-- Reverts 0031_votes_per_app: votes name their app as text again and expansion reads every app's. Where one person
-- voted on one feedback in several apps, the earliest vote stays.

ALTER TABLE feedback_votes ADD COLUMN app_external_id text;
UPDATE feedback_votes AS v SET app_external_id = a.external_id FROM apps AS a WHERE a.id = v.app_id;

DELETE FROM feedback_votes AS v
USING feedback_votes AS earlier
WHERE earlier.feedback_id = v.feedback_id AND earlier.project_external_id = v.project_external_id
  AND (earlier.voter_user_id = v.voter_user_id OR earlier.voter_email = v.voter_email)
  AND (earlier.voted_at, earlier.ctid) < (v.voted_at, v.ctid);

DROP INDEX feedback_votes_app;
DROP INDEX feedback_votes_voter_email;
DROP INDEX feedback_votes_voter_user;
DROP INDEX feedback_votes_email_key;
DROP INDEX feedback_votes_user_key;
ALTER TABLE feedback_votes DROP COLUMN app_id;

CREATE UNIQUE INDEX feedback_votes_user_key ON feedback_votes (feedback_id, project_external_id, voter_user_id)
    WHERE voter_user_id IS NOT NULL;
CREATE UNIQUE INDEX feedback_votes_email_key ON feedback_votes (feedback_id, project_external_id, voter_email)
    WHERE voter_email IS NOT NULL;
