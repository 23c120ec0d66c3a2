/// Applies a migration of a newer VitalBridge release to the store at `path` from another process (Python's
/// sqlite3), as that release would while a process of this one has the store open: its table and its row in the
/// migrations table in one transaction, then its schema number. Needs python3.
public func migrateAsNewerRelease(_ path: String) throws -> ProcessOutput {
    try runProgram(
        "/usr/bin/env",
        [
            "python3", "-c",
            """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1])
            c.execute('CREATE TABLE newer (id INTEGER PRIMARY KEY)')
            c.execute("INSERT INTO grdb_migrations (identifier) VALUES ('v11: a newer release')")
            c.commit()
            c.execute('PRAGMA user_version = 11')
            c.commit()
            """,
            path,
        ])
}
