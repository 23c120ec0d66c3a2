-- at schema 3: a caller that asked for the monitor, and the reading it has not had
INSERT INTO pending_caller VALUES ('004D3208D2F4', 'com.example.other');
INSERT INTO pending VALUES ('com.example.other', '004D3208D2F4', 1763550120, 2);
