import Foundation
import LiveRelayCore
import Logging
import Synchronization
import Testing
import Worker

/// One line per event: text, or one JSON object with millisecond UTC time and the metadata as fields.
@Suite struct LineLogHandlerTests {
    @Test func aJSONLineHasTheTimeLevelLoggerMessageAndMetadataAsFields() throws {
        let lines = LinesSeen()
        var logger = Logger(label: "liverelay.run") {
            LineLogHandler(label: $0, format: .json, level: .info, write: { line in lines.add(line) })
        }
        logger[metadataKey: "worker"] = "w1"
        logger.info("delivery round", metadata: ["sent": "3", "activity.key": "match-760499"])
        logger.debug("not at info")
        let all = lines.all
        #expect(all.count == 1)
        let object = try JSONParser.parse(Data(all[0].utf8))
        #expect(object["message"] == "delivery round")
        #expect(object["level"] == "info")
        #expect(object["logger"] == "liverelay.run")
        #expect(object["sent"] == "3")
        #expect(object["activity.key"] == "match-760499")
        #expect(object["worker"] == "w1")
        guard case .string(let time)? = object["ts"] else { throw DemoConfigErrorLike() }
        #expect(time.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(time)")
    }

    @Test func aTextLineHasMillisecondsToo() {
        let lines = LinesSeen()
        let logger = Logger(label: "liverelay.tick") {
            LineLogHandler(label: $0, format: .text, level: .warning, write: { line in lines.add(line) })
        }
        logger.warning("feed wait capped", metadata: ["feed.id": "scores"])
        #expect(lines.all.count == 1)
        #expect(
            lines.all[0].wholeMatch(
                of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z warning liverelay\.tick: feed wait capped feed\.id=scores/)
                != nil, "\(lines.all)")
    }

    final class LinesSeen: Sendable {
        private let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    struct DemoConfigErrorLike: Error {}
}
