ALTER TABLE deliveries DROP COLUMN variant;
