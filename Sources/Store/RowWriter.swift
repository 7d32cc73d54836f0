import Foundation
import GRDB
import GRDBSQLite

/// A cached statement run once per row, its values bound straight through SQLite's C API: for the writes of
/// many rows in one transaction (an import of a token file), where `StatementArguments` would box every value
/// of every row. The statement is reset after each row, so GRDB may use it again as usual.
struct RowWriter {
    private let statement: Statement
    private let db: Database

    init(_ db: Database, sql: String) throws {
        self.db = db
        statement = try db.cachedStatement(sql: sql)
    }

    /// Binds the row's values in order (`bind` calls ``Row``'s `text`, `integer` and `null`) and runs the
    /// statement; an error names the statement, never its values.
    func write(_ bind: (inout Row) -> Void) throws {
        let handle = statement.sqliteStatement
        var row = Row(handle: handle)
        bind(&row)
        let code = row.failure ?? sqlite3_step(handle)
        sqlite3_reset(handle)
        guard code == SQLITE_DONE else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code),
                message: db.sqliteConnection.map { String(cString: sqlite3_errmsg($0)) }, sql: statement.sql)
        }
    }

    /// The values of one row, bound in order from the first parameter.
    struct Row {
        fileprivate let handle: SQLiteStatement
        private var index: Int32 = 1
        /// The first value SQLite could not bind (a parameter too many), if any.
        fileprivate private(set) var failure: Int32?

        fileprivate init(handle: SQLiteStatement) { self.handle = handle }

        mutating func text(_ value: String) {
            var value = value
            let code = value.withUTF8 { bytes in
                // SQLite copies the bytes (SQLITE_TRANSIENT): they need not outlive the call. An empty text
                // is bound as "", never as the NULL a missing address would mean.
                guard let base = bytes.baseAddress, !bytes.isEmpty else {
                    return sqlite3_bind_text(handle, index, "", 0, transient)
                }
                return sqlite3_bind_text(
                    handle, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(bytes.count),
                    transient)
            }
            note(code)
        }

        mutating func integer(_ value: Int) {
            note(sqlite3_bind_int64(handle, index, Int64(value)))
        }

        /// UTF-8 text given as bytes (a JSON document written for the row), without making a `String` of it.
        mutating func text(utf8 value: Data) {
            let code = value.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress, !bytes.isEmpty else {
                    return sqlite3_bind_text(handle, index, "", 0, transient)
                }
                return sqlite3_bind_text(
                    handle, index, base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), transient)
            }
            note(code)
        }

        /// A value or NULL.
        mutating func text(_ value: String?) {
            if let value { text(value) } else { null() }
        }

        /// A value or NULL.
        mutating func integer(_ value: Int?) {
            if let value { integer(value) } else { null() }
        }

        mutating func null() {
            note(sqlite3_bind_null(handle, index))
        }

        private mutating func note(_ code: Int32) {
            if code != SQLITE_OK, failure == nil { failure = code }
            index += 1
        }
    }
}

/// SQLite's "copy the value now" destructor.
private let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
