-- at schema 9: a band day with its sport totals and sleep segments
INSERT INTO reading (id, device_mac, kind, measured_at, revision, steps, cal, dist, deep, light, awake, sporttotals, sleepsegs)
    VALUES (19, '004D3208D310', 'band_day', 1763683200, 0, 11, 12, 13, 1, 2, 3, '1/8421/312/6120', '1/40/40,4/40/85');
