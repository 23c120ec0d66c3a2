-- at schema 10: a second person, with a user index of the same monitor
INSERT INTO person (name) VALUES ('Ann');
INSERT INTO assignment VALUES ('004D3208D2F4', 2, 2);
