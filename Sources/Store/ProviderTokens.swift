import GRDB

/// Provider tokens (signed JWTs) kept between processes, so a restart does not mint a new one too soon. They
/// are credentials: they stay in the state file, never in logs.
extension SQLiteStore {
    static func registerProviderTokenMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v5-provider-tokens") { db in
            try db.create(table: "provider_token") { t in
                t.column("key", .text).primaryKey()
                t.column("token", .text).notNull()
                t.column("issued_at", .integer).notNull()
            }
        }
    }

    /// The saved token for `key`, if any; a state file that cannot be read has none.
    public func providerToken(key: String) async -> (token: String, issuedAt: Int)? {
        let found = try? await run(
            "reading a provider token",
            { db in
                try Row.fetchOne(db, sql: "SELECT token, issued_at FROM provider_token WHERE key = ?", arguments: [key])
                    .map { (token: $0[0] as String, issuedAt: $0[1] as Int) }
            }, write: false)
        return found ?? nil
    }

    /// Saves a newly minted token before it is used; if the state file cannot be written, the token is used
    /// from memory (the next process mints its own).
    @discardableResult
    public func saveProviderToken(key: String, token: String, issuedAt: Int) async -> (token: String, issuedAt: Int) {
        _ = try? await run(
            "saving a provider token",
            { db in
                try db.execute(
                    sql: """
                        INSERT INTO provider_token (key, token, issued_at) VALUES (?, ?, ?)
                        ON CONFLICT(key) DO UPDATE SET token = excluded.token, issued_at = excluded.issued_at
                        """, arguments: [key, token, issuedAt])
            }, write: true)
        return (token, issuedAt)
    }
}
