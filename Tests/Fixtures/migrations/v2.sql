-- at schema 1 (release 0.14.0's first): two devices, two readings as text, a delivery of the first
INSERT INTO device VALUES ('004D3208D2F4', 100, 'BP5-1', '1.0.2', NULL, 1763550000);
INSERT INTO device VALUES ('004D3208D310', 700, NULL, NULL, '1111,40,1,170,70,1,0', 1763550100);
INSERT INTO reading (id, device_mac, kind, measured_at, payload)
    VALUES (1, '004D3208D2F4', 'blood_pressure', 1763550060, 'sys=120.0;dia=80.0;hr=70;arr=0');
INSERT INTO reading (id, device_mac, kind, measured_at, payload)
    VALUES (2, '004D3208D2F4', 'blood_pressure', 1763550120, 'sys=131.5;dia=85.0');
INSERT INTO delivery (caller, device_mac, action, status, delivered_at, remaining)
    VALUES ('com.example.app', '004D3208D2F4', 2, 61455, 1763550200, 0);
INSERT INTO delivery_reading VALUES (1, 1, 'com.example.app');
