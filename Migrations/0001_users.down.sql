-- Reverts 0001_users: removes the users table and its indexes.

DROP TABLE users;
