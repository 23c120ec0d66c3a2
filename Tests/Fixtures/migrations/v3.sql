-- at schema 2: a caller's reservation of the second reading
INSERT INTO reservation VALUES ('com.example.other', 2, 'pid:1234', 1763550300.5);
