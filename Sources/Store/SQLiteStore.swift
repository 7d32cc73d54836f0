public import Foundation
import GRDB
public import LiveRelayCore
@_exported public import StoreCore

/// LiveRelay's state in one SQLite file (WAL): the last facts of every feed, HTTP validators, and every
/// activity's last full content-state. A cron tick reads what the previous tick wrote.
public final class SQLiteStore: StateStore {
    private let pool: DatabasePool
    /// The database file.
    public let path: String
    /// The file opened (device and inode), to notice a state file deleted, moved or replaced under the
    /// running process, which SQLite would go on writing into unseen.
    private let identity: FileIdentity?
    /// Subscriptions written through the token API at once go in one transaction.
    let subscriptionWrites = GroupCommit<QueuedSubscriptionPut, SubscriptionWrite>()

    /// A store that could not be opened or written.
    public typealias Failure = StoreFailure

    /// The state file.
    public var location: String { path }

    /// Opens (creating if needed) the database and brings its schema up to date.
    /// - Parameter busyTimeout: how long a write waits for another connection's lock before it fails with
    ///   "database is locked".
    public init(path: String, busyTimeout: Duration = .seconds(5)) throws(Failure) {
        self.path = path
        do {
            try Self.restrictToOwner(path)
            var configuration = Configuration()
            configuration.busyMode = .timeout(busyTimeout / .seconds(1))
            pool = try DatabasePool(path: path, configuration: configuration)
            try SQLiteStore.migrator.migrate(pool)
            // SQLite gives its -wal and -shm files the database file's mode; older ones are made so here.
            for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
                chmod(path + suffix, 0o600)
            }
            identity = FileIdentity(path: path)
        } catch {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            // SQLite says only "unable to open database file": name the usual cause.
            let hint =
                !FileManager.default.fileExists(atPath: folder)
                ? " (the folder \(folder) does not exist)"
                : FileManager.default.isWritableFile(atPath: folder)
                    ? ""
                    : " (the folder \(folder) is not writable: the state file and its -wal and -shm files live there)"
            throw Failure(path: path, message: "\(error)\(hint)")
        }
    }

    /// The state file holds device tokens, provider addresses and the live APNs provider token: only its
    /// owner may read it. A new file is created with mode 0600; an existing one is set to it.
    private static func restrictToOwner(_ path: String) throws(Failure) {
        let descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        if descriptor >= 0 { close(descriptor) }
        guard chmod(path, 0o600) == 0 || descriptor < 0 else {
            throw Failure(
                path: path, message: "cannot make the state file private: \(String(cString: strerror(errno)))")
        }
    }

    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            try db.create(table: "feed_entity") { t in
                t.column("feed", .text).notNull()
                t.column("entity", .text).notNull()
                t.column("facts", .text).notNull()
                t.column("updated_at", .integer).notNull()
                t.primaryKey(["feed", "entity"])
            }
            try db.create(table: "feed_state") { t in
                t.column("feed", .text).primaryKey()
                t.column("etag", .text)
                t.column("last_modified", .text)
                t.column("last_success", .integer)
            }
            try db.create(table: "activity") { t in
                t.column("key", .text).primaryKey()
                t.column("attributes_type", .text).notNull()
                t.column("phase", .text).notNull()
                t.column("state", .text).notNull()
                t.column("last_timestamp", .integer).notNull()
            }
        }
        m.registerMigration("v2-throttle") { db in
            // The throttle's memory of each activity (budget window, pending push), as JSON the Worker encodes.
            try db.create(table: "throttle_state") { t in
                t.column("key", .text).primaryKey()
                t.column("state", .text).notNull()
                t.column("pending", .boolean).notNull()
            }
        }
        registerTokenRegistryMigration(&m)
        registerOutboxMigration(&m)
        registerProviderTokenMigration(&m)
        registerProviderAddressMigration(&m)
        registerActivityStartMigration(&m)
        m.registerMigration("v3-activity-view") { db in
            // What rules read as `activity` and what timer rules need: the entity of the last push, the start,
            // the facts at the last push, the last delivery and each timer rule's last due time.
            try db.alter(table: "activity") { t in
                t.add(column: "entity_feed", .text)
                t.add(column: "entity_id", .text)
                t.add(column: "started_at", .integer)
                t.add(column: "facts", .text)
                t.add(column: "sent_at", .integer)
                t.add(column: "timers", .text)
            }
        }
        m.registerMigration("v4-timer-due") { db in
            // When a live activity's timer rules may next come due (NULL: look at the next pass), so a timer
            // pass reads only the activities it has to; and which timer rules those times were computed for.
            try db.alter(table: "activity") { t in t.add(column: "timer_due", .integer) }
            try db.execute(
                sql: "CREATE INDEX activity_timer_due ON activity (timer_due) WHERE phase IN ('pending', 'active')")
            try db.create(table: "meta") { t in
                t.column("key", .text).primaryKey()
                t.column("value", .text).notNull()
            }
        }
        registerHistoryMigration(&m)
        registerChannelMigration(&m)
        registerFeedScheduleMigration(&m)
        m.registerMigration("v16-activity-changes") { db in
            // `activity.changed-at` (the last push that changed the state; the last push is the best guess for
            // records from before), `activity.delivered-state` (the newest push that got through, by its
            // timestamp) and, per entity, when each fact a quiet rule names last changed.
            try db.alter(table: "activity") { t in
                t.add(column: "changed_at", .integer)
                t.add(column: "delivered_state", .text)
                t.add(column: "delivered_timestamp", .integer)
            }
            try db.execute(sql: "UPDATE activity SET changed_at = last_timestamp")
            try db.alter(table: "feed_entity") { t in t.add(column: "fact_changes", .text) }
        }
        registerFanOutMigration(&m)
        registerLateJoinMigration(&m)
        registerSubscriptionsMigration(&m)
        return m
    }

    /// Saved throttle states, as the JSON the Worker wrote: every one, or only those with a pending push
    /// (what a starting worker needs; the others are read when a push touches their activity).
    public func throttleStates(pendingOnly: Bool = false) async throws(Failure) -> [ActivityKey: Data] {
        let sql = "SELECT key, state FROM throttle_state" + (pendingOnly ? " WHERE pending" : "")
        return try await run(
            "reading throttle states",
            { db in
                var out: [ActivityKey: Data] = [:]
                for row in try Row.fetchAll(db, sql: sql) {
                    let text: String = row["state"]
                    out[ActivityKey(row["key"])] = Data(text.utf8)
                }
                return out
            }, write: false)
    }

    /// The saved throttle states of these activities (those that have one).
    public func throttleStates(_ keys: [ActivityKey]) async throws(Failure) -> [ActivityKey: Data] {
        return try await run(
            "reading throttle states",
            { db in
                var out: [ActivityKey: Data] = [:]
                let rows = try Row.fetchCursor(
                    db.cachedStatement(
                        sql: "SELECT key, state FROM throttle_state WHERE key IN (SELECT value FROM json_each(?))"),
                    arguments: [Self.list(keys.map(\.rawValue))])
                while let row = try rows.next() {
                    let text: String = row[1]
                    out[ActivityKey(row[0])] = Data(text.utf8)
                }
                return out
            }, write: false)
    }

    /// Saves throttle states (JSON), noting which have a pending push.
    public func saveThrottleStates(_ states: [(key: ActivityKey, json: Data, pending: Bool)]) async throws(Failure) {
        try await run("saving throttle states", { db in try Self.saveThrottleStates(states, db) }, write: true)
    }

    static func saveThrottleStates(_ states: [(key: ActivityKey, json: Data, pending: Bool)], _ db: Database) throws {
        guard !states.isEmpty else { return }
        // Prepared once per connection: a release writes a row per activity it touched.
        let upsert = try RowWriter(
            db,
            sql: """
                INSERT INTO throttle_state (key, state, pending) VALUES (?, ?, ?)
                ON CONFLICT(key) DO UPDATE SET state = excluded.state, pending = excluded.pending
                """)
        for s in states {
            try upsert.write {
                $0.text(s.key.rawValue)
                $0.text(utf8: s.json)
                $0.integer(s.pending ? 1 : 0)
            }
        }
    }

    func run<T: Sendable>(_ what: String, _ body: @Sendable (Database) throws -> T, write: Bool)
        async throws(Failure) -> T
    {
        // Everything here, the file's identity check (a stat) included, runs on GRDB's own queues: a store
        // call only awaits on the cooperative threads, it never blocks one.
        do {
            guard write else {
                return try await pool.read { db in
                    try self.checkIdentity(what)
                    return try body(db)
                }
            }
            let n = KillPoint.beforeWrite()
            let result = try await pool.write { db in
                try self.checkIdentity(what)
                return try body(db)
            }
            KillPoint.afterWrite(n)
            return result
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(path: path, message: "\(what): \(error)")
        }
    }

    /// The last facts seen for every entity of a feed.
    public func facts(feed: String) async throws(Failure) -> [String: Facts] {
        let path = self.path
        return try await run(
            "reading facts",
            { db in
                var out: [String: Facts] = [:]
                for row in try Row.fetchAll(
                    db, sql: "SELECT entity, facts FROM feed_entity WHERE feed = ?", arguments: [feed])
                {
                    let entity: String = row["entity"]
                    let text: String = row["facts"]
                    out[entity] = try StoredValues.facts(text, of: "\(feed)/\(entity)", location: path)
                }
                return out
            }, write: false)
    }

    /// The HTTP validators saved for a feed's last successful poll.
    public func validators(feed: String) async throws(Failure) -> (etag: String?, lastModified: String?) {
        try await run(
            "reading validators",
            { db in
                let row = try Row.fetchOne(
                    db, sql: "SELECT etag, last_modified FROM feed_state WHERE feed = ?", arguments: [feed])
                return (row?["etag"], row?["last_modified"])
            }, write: false)
    }

    /// Saves one poll's outcome in one transaction: the feed's new facts (entities that disappeared are
    /// removed), its validators, and the activity records the ledger changed.
    public func commit(_ commit: FeedCommit) async throws(Failure) {
        try await run(
            "saving a poll",
            { db in
                if let facts = commit.facts {
                    for id in commit.removedEntities {
                        try db.execute(
                            sql: "DELETE FROM feed_entity WHERE feed = ? AND entity = ?", arguments: [commit.feed, id])
                    }
                    let upsert = try db.cachedStatement(
                        sql: """
                            INSERT INTO feed_entity (feed, entity, facts, updated_at, fact_changes) VALUES (?, ?, ?, ?, ?)
                            ON CONFLICT(feed, entity) DO UPDATE SET facts = excluded.facts, updated_at = excluded.updated_at,
                            fact_changes = CASE WHEN excluded.fact_changes IS NULL THEN feed_entity.fact_changes
                              ELSE json_patch(COALESCE(feed_entity.fact_changes, '{}'), excluded.fact_changes) END
                            """)
                    for (id, f) in facts {
                        try upsert.execute(arguments: [
                            commit.feed, id, f.value.jsonString(), commit.now, commit.factChangesText(of: id),
                        ])
                    }
                }
                try db.execute(
                    sql: """
                        INSERT INTO feed_state (feed, etag, last_modified, last_success) VALUES (?, ?, ?, ?)
                        ON CONFLICT(feed) DO UPDATE SET etag = excluded.etag, last_modified = excluded.last_modified,
                        last_success = excluded.last_success
                        """, arguments: [commit.feed, commit.etag, commit.lastModified, commit.now])
                try SQLiteStore.save(commit.activities, db)
                try SQLiteStore.saveThrottleStates(commit.throttleStates, db)
                try SQLiteStore.saveHistory(commit.history, db)
            }, write: true)
    }

}

extension SQLiteStore {
    /// Refuses to read or write when the path no longer leads to the file this store opened: deleted (the
    /// process would write into an unlinked file, lost at exit), replaced by another file, or truncated to
    /// nothing. Reads are refused too: they would answer from the old file.
    func checkIdentity(_ what: String) throws(Failure) {
        guard let identity else { return }
        let message: String
        switch FileIdentity(path: path) {
        case nil:
            message = "\(what): the state file is gone (deleted or moved away while the worker runs)"
        case let now? where now.device != identity.device || now.inode != identity.inode:
            message = "\(what): the state file was replaced by another file while the worker runs"
        case let now? where now.size == 0:
            message = "\(what): the state file was truncated to nothing while the worker runs"
        default:
            return
        }
        throw Failure(path: path, message: message + "; restart the worker to open the file that is there now")
    }
}

/// Which file a path leads to: its device and inode, and its size.
struct FileIdentity: Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64

    /// `nil` when nothing is at `path`.
    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        size = Int64(status.st_size)
    }
}
