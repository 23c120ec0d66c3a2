-- at schema 4: a band's pushed item and its day, revised twice
INSERT INTO day_item VALUES ('004D3208D310', 20412, 1, 0, x'0102');
INSERT INTO reading (id, device_mac, kind, measured_at, payload, revision)
    VALUES (3, '004D3208D310', 'band_day', 1763510400,
        'steps=1;cal=2;dist=3;deep=4;light=5;awake=6;hrmin=50;hravg=60;hrmax=90;hrn=600;sports=1/490/525/120', 2);
