public import Foundation

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
