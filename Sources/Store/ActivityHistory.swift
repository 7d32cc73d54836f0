public import Foundation
import GRDB

/// What the live report draws from: each activity's recent decisions (the changes and timer looks that
/// reached it, and what the throttle released or held for it), kept for a bounded window.
///
/// A row's body is the JSON the Worker encoded (a report look or release); the store only keeps, prunes and
/// reads rows. Rows are written in the same transaction as the decision they record (a poll's commit, a
/// timer pass, a release), so the history never shows a push the state file does not have.
public struct HistoryRow: Sendable, Hashable {
    /// What the row belongs to: an activity key.
    public var activity: String
    /// When it was decided (UNIX seconds).
    public var at: Int
    /// What the body holds.
    public var kind: Kind
    /// The encoded decision.
    public var body: Data

    /// A look (a change or a timer look) or a release (a push sent or held).
    public enum Kind: String, Sendable, Hashable {
        case look, release
    }

    /// A row.
    public init(activity: String, at: Int, kind: Kind, body: Data) {
        self.activity = activity
        self.at = at
        self.kind = kind
        self.body = body
    }
}

/// Rows to write with a commit, and the window to keep: rows older than `keepFrom` are removed in the same
/// transaction, so the table never outgrows the window. A write with no rows prunes nothing (nothing grew):
/// a poll that decided nothing costs no statement.
public struct HistoryWrite: Sendable {
    public var rows: [HistoryRow]
    /// Rows before this time go.
    public var keepFrom: Int

    /// A write.
    public init(rows: [HistoryRow], keepFrom: Int) {
        self.rows = rows
        self.keepFrom = keepFrom
    }
}

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
