-- Reverts 0026_feedback_votes. Recorded votes are lost; status changes reach only the voters listed inline.

DROP TABLE feedback_votes;
