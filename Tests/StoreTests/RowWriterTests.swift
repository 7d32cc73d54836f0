import Foundation
import GRDB
import Testing

@testable import Store

/// Rows written through SQLite's C API read back as GRDB wrote them, and a failure names the statement
/// without its values.
@Suite struct RowWriterTests {
    static func database() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (a TEXT NOT NULL, b TEXT, n INTEGER, UNIQUE (a))")
        }
        return queue
    }

    @Test func rowsReadBackWhole() throws {
        let queue = try Self.database()
        try queue.write { db in
            let insert = try RowWriter(db, sql: "INSERT INTO t (a, b, n) VALUES (?, ?, ?)")
            for (a, b, n) in [("één", "", 1), ("x y", "🙂", -7), (String(repeating: "z", count: 300), "b", .max)] {
                try insert.write {
                    $0.text(a)
                    $0.text(b)
                    $0.integer(n)
                }
            }
        }
        // NULLs, and text given as bytes.
        try queue.write { db in
            let insert = try RowWriter(db, sql: "INSERT INTO t (a, b, n) VALUES (?, ?, ?)")
            try insert.write {
                $0.text(utf8: Data(#"{"price":"100120.5"}"#.utf8))
                $0.text(nil as String?)
                $0.integer(nil as Int?)
            }
        }
        let rows = try queue.read { db in try GRDB.Row.fetchAll(db, sql: "SELECT a, b, n FROM t ORDER BY rowid") }
        #expect(
            rows.map { $0["a"] as String } == [
                "één", "x y", String(repeating: "z", count: 300), #"{"price":"100120.5"}"#,
            ])
        // An empty text is "", not NULL.
        #expect(rows.map { $0["b"] as String? } == ["", "🙂", "b", nil])
        #expect(rows.map { $0["n"] as Int? } == [1, -7, .max, nil])
    }

    @Test func aFailureNamesTheStatementNotTheValues() throws {
        let queue = try Self.database()
        let failure = #expect(throws: DatabaseError.self) {
            try queue.write { db in
                let insert = try RowWriter(db, sql: "INSERT INTO t (a, b, n) VALUES (?, ?, ?)")
                for _ in 0..<2 {
                    try insert.write {
                        $0.text("secret-token-value")
                        $0.text("b")
                        $0.integer(1)
                    }
                }
            }
        }
        #expect(failure?.resultCode == .SQLITE_CONSTRAINT)
        #expect(failure?.sql?.hasPrefix("INSERT INTO t") == true)
        #expect(!"\(failure.map { "\($0)" } ?? "")".contains("secret-token-value"))
        // The statement was reset: the same connection writes on.
        try queue.write { db in
            try RowWriter(db, sql: "INSERT INTO t (a, b, n) VALUES (?, ?, ?)").write {
                $0.text("next")
                $0.text("b")
                $0.integer(2)
            }
        }
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 1)
    }

    /// A value too many is an error, not a value dropped.
    @Test func aValueTooManyIsAnError() throws {
        let queue = try Self.database()
        let failure = #expect(throws: DatabaseError.self) {
            try queue.write { db in
                try RowWriter(db, sql: "INSERT INTO t (a, n) VALUES (?, ?)").write {
                    $0.text("a")
                    $0.integer(1)
                    $0.integer(2)
                }
            }
        }
        #expect(failure?.resultCode == .SQLITE_RANGE)
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 0)
    }
}
