-- at schema 6: a reading in typed columns
INSERT INTO reading (id, device_mac, kind, measured_at, revision, mgdl) VALUES (15, '004D3208D308', 'glucose', 1763560000, 0, 101.0);
