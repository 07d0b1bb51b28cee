-- Reverts 0043_push_interactions.
DROP TRIGGER IF EXISTS users_forget_interactions ON users;
DROP FUNCTION IF EXISTS herald_interactions_forget_users();
DROP TABLE IF EXISTS push_interactions;
DROP SEQUENCE IF EXISTS push_interaction_positions;
