-- at schema 12: a glucose its meter dated an hour ahead, stored corrected (its device time kept)
INSERT INTO reading (id, device_mac, kind, measured_at, revision, mgdl, device_time)
    VALUES (20, '004D3208D308', 'glucose', 1763590000, 0, 97.0, 1763593600);
