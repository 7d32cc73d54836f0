import Foundation
import GRDB

extension SQLiteStore {
    static func registerHistoryMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v10-activity-history") { db in
            try db.create(table: "activity_history") { t in
                t.autoIncrementedPrimaryKey("seq")
                t.column("activity", .text).notNull()
                t.column("at", .integer).notNull()
                t.column("kind", .text).notNull()
                t.column("body", .text).notNull()
            }
            try db.create(index: "activity_history_activity", on: "activity_history", columns: ["activity", "seq"])
            try db.create(index: "activity_history_at", on: "activity_history", columns: ["at"])
        }
    }

    /// Writes history rows and prunes what fell out of the window (inside the caller's transaction).
    static func saveHistory(_ write: HistoryWrite?, _ db: Database) throws {
        guard let write, !write.rows.isEmpty else { return }
        try db.execute(sql: "DELETE FROM activity_history WHERE at < ?", arguments: [write.keepFrom])
        let statement = try db.cachedStatement(
            sql: "INSERT INTO activity_history (activity, at, kind, body) VALUES (?, ?, ?, ?)")
        for row in write.rows where row.at >= write.keepFrom {
            try statement.execute(arguments: [
                row.activity, row.at, row.kind.rawValue, String(decoding: row.body, as: UTF8.self),
            ])
        }
    }

    /// An activity's history from `from` on, in the order it was written: the newest `limit` rows when there
    /// are more (the first ones are then left out, and `truncated` says so).
    public func history(activity: String, from: Int, limit: Int = 20_000) async throws(Failure) -> (
        rows: [HistoryRow], truncated: Bool
    ) {
        try await run(
            "reading an activity's history",
            { db in
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT at, kind, body FROM activity_history WHERE activity = ? AND at >= ?
                        ORDER BY seq DESC LIMIT ?
                        """, arguments: [activity, from, limit + 1])
                let kept = rows.prefix(limit).reversed().compactMap { row -> HistoryRow? in
                    let kind: String = row["kind"]
                    let body: String = row["body"]
                    return HistoryRow.Kind(rawValue: kind).map {
                        HistoryRow(activity: activity, at: row["at"], kind: $0, body: Data(body.utf8))
                    }
                }
                return (Array(kept), rows.count > limit)
            }, write: false)
    }
}
