-- Reverts 0009_deliveries.

DROP TABLE deliveries;
