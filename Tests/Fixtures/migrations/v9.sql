-- at schema 8: a sink, a reading deleted with its feed row
INSERT INTO sink (name, address, password_file, added_at) VALUES ('clinic', 'postgresql://hub@db/health', NULL, 1763580000);
INSERT INTO reading (id, device_mac, kind, measured_at, revision, c, deleted_at) VALUES (18, '004D3208D308', 'temperature', 1763580100, 0, 39.9, 1763580200);
INSERT INTO feed (reading_id, op, reason) VALUES (18, 2, 'wrong person');
