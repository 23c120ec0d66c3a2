-- at schema 7: a person, a user index assigned to her and one nobody has, a reading of each, with statuses
INSERT INTO person (name) VALUES ('Jane');
INSERT INTO assignment VALUES ('004D3208D2F4', 1, 1);
INSERT INTO caller_person VALUES ('com.example.app', 1);
INSERT INTO reading (id, device_mac, kind, measured_at, revision, sys, dia, status, unavailable, user_index, device_time)
    VALUES (16, '004D3208D2F4', 'blood_pressure', 1763570000, 0, 118.0, 76.0, 1, NULL, 1, 1763569990),
    (17, '004D3208D2F4', 'blood_pressure', 1763570100, 0, 125.0, 82.0, NULL, 'hr=NaN', 2, NULL);
