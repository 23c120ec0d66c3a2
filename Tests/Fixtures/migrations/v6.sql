-- at schema 5: a reading of every kind as 0.14.0 wrote it, and rows it could not read
INSERT INTO device VALUES ('004D3208D308', 400, NULL, NULL, NULL, 1763550300);
INSERT INTO reading (id, device_mac, kind, measured_at, payload) VALUES
    (4, '004D3208D308', 'glucose', 1763550400, 'mgdl=98.6'),
    (5, '004D3208D308', 'weight', 1763550500, 'kg=70.5;fat=20.1;water=30.2;bmr=1500'),
    (6, '004D3208D308', 'oximetry', 1763550600, 'spo2=98;hr=60;pi=1.5'),
    (7, '004D3208D308', 'temperature', 1763550700, 'c=36.6'),
    (8, '004D3208D310', 'activity', 1763510400, 'steps=100;cal=5;sleep=300;eff=90'),
    (9, '004D3208D310', 'heart_rate', 1763550800, 'hr=60;rr=812.5/790.0390625'),
    (10, '004D3208D310', 'band_day', 1763596800,
        'steps=7;cal=8;dist=9;deep=1;light=2;awake=3;sports=02/725/735/80/////,2/725/735/80/0/0/220/10/'),
    (11, '004D3208D2F4', 'blood_pressure', 1763550900, 'sys=107.0;dia=57.0;hr=71;arr=2'),
    (12, '004D3208D308', 'glucose', 1763551000, 'mgdl=90;x=1'),
    (13, '004D3208D308', 'lactate', 1763551100, 'mmol=2.1'),
    (14, '004D3208D308', 'weight', 1763551200, 'kg=70.5;water=30.2');
