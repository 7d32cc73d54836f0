import GRDB

extension SQLiteStore {
    /// The schema steps applied to the state file, in the order they were registered (opening the store
    /// applies the missing ones).
    public func appliedMigrations() async throws(Failure) -> [String] {
        try await run(
            "reading the migrations",
            { db in
                let applied = try Self.migrator.appliedIdentifiers(db)
                return Self.migrator.migrations.filter(applied.contains)
            }, write: false)
    }

    /// Every schema step this build knows, in order.
    public static var knownMigrations: [String] { migrator.migrations }
}
