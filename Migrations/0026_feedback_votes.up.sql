-- Votes as data (seed 004 §5.2): a new_vote event records its voter against the feedback, so a later status_change
-- reaches every voter without the backend listing them. The feedback itself lives in the backend; Herald keeps its
-- id as given, and the voter as the backend names people: by user id or by email address. Either may belong to no
-- user yet; expansion matches them to users when a status change is sent, as it does for people named inline.

CREATE TABLE feedback_votes (
    feedback_id text NOT NULL,
    -- The project the vote was cast in; a status change reaches the votes of its own project's feedback.
    project_external_id text NOT NULL,
    -- The app of an app's key, or of the event's appId: other apps' keys neither see nor remove the vote.
    app_external_id text,
    -- Exactly one: the backend's user id, or an email address in lower case.
    voter_user_id text,
    voter_email text,
    voted_at timestamptz NOT NULL DEFAULT now(),

    CONSTRAINT feedback_votes_feedback_id_format CHECK (
        char_length(feedback_id) BETWEEN 1 AND 256 AND feedback_id !~ '[\n\r]'
    ),
    CONSTRAINT feedback_votes_one_voter CHECK ((voter_user_id IS NULL) <> (voter_email IS NULL)),
    CONSTRAINT feedback_votes_email_lower CHECK (voter_email = lower(voter_email))
);

-- One vote per person and feedback; a repeated new_vote keeps the first. These also find a feedback's voters.
CREATE UNIQUE INDEX feedback_votes_user_key ON feedback_votes (feedback_id, project_external_id, voter_user_id)
    WHERE voter_user_id IS NOT NULL;
CREATE UNIQUE INDEX feedback_votes_email_key ON feedback_votes (feedback_id, project_external_id, voter_email)
    WHERE voter_email IS NOT NULL;
