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

    /// The saved token for `key`, if any (synchronous: it is read once, when a provider is made).
    public func providerToken(key: String) -> (token: String, issuedAt: Int)? {
        let found = try? syncRead { db in
            try Row.fetchOne(db, sql: "SELECT token, issued_at FROM provider_token WHERE key = ?", arguments: [key])
        }
        guard let row = found ?? nil else { return nil }
        return (row["token"], row["issued_at"])
    }

    /// Saves a newly minted token (synchronous: minting is rare, and the token must be on disk before it is used).
    @discardableResult
    public func saveProviderToken(key: String, token: String, issuedAt: Int) -> (token: String, issuedAt: Int) {
        try? syncWrite { db in
            try db.execute(
                sql: """
                    INSERT INTO provider_token (key, token, issued_at) VALUES (?, ?, ?)
                    ON CONFLICT(key) DO UPDATE SET token = excluded.token, issued_at = excluded.issued_at
                    """, arguments: [key, token, issuedAt])
        }
        return (token, issuedAt)
    }
}
