import Foundation
import LiveRelayCore
import Testing

@testable import Worker

/// The token API's id checks on their own, below the HTTP layer (which already refuses raw control and
/// non-ASCII bytes in a path, and does not percent-decode path steps).
@Suite struct ValidateTests {
    /// fuzz-tokenapi: the checks' `$` also matched before a final line terminator, so `W\r` passed as a device
    /// id (and `id\n`, `id` + U+2028 as any id).
    @Test(arguments: ["W\r", "iPhone\n", "iPhone\r\n", "iPhone\u{2028}", "iPhone\u{85}", "\nW", "a\nb"])
    func idsWithALineTerminatorAreRefused(id: String) {
        #expect(throws: APIError.self) { try Validate.device(id) }
        #expect(throws: APIError.self) { try Validate.attributesType(id) }
        #expect(throws: APIError.self) { try Validate.activity(id) }
        #expect(throws: APIError.self) { try Validate.entity(id) }
    }

    @Test func plainIdsStillPass() throws {
        #expect(try Validate.device("iPhone-1.local:2") == "iPhone-1.local:2")
        #expect(try Validate.attributesType("MatchAttributes") == "MatchAttributes")
        #expect(try Validate.activity("match-401").rawValue == "match-401")
        #expect(try Validate.entity("team@401") == "team@401")
        #expect(try Validate.device(String(repeating: "a", count: 128)) == String(repeating: "a", count: 128))
        #expect(throws: APIError.self) { try Validate.device(String(repeating: "a", count: 129)) }
    }
}
