DROP TABLE channel_broadcasts;
DROP TABLE broadcast_channels;
