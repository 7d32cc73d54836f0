import Feeds
import Foundation
import FuzzSupport
import LiveRelayCore

/// The first byte picks what reads the rest:
/// 0 ESPN scoreboard (with a sport and without), 1 football-data, 2 Binance, 3 Coinbase Exchange, 4 Kraken, 5 CoinGecko (each a body);
/// 6 the demo config's generic mapping (a body); 7 a generic mapping, a NUL byte, then a body; 8 a feed URL
/// that every preset reads its options from. A normaliser may refuse a body; it must not crash. The generic
/// mapping builds only what it selects from a body, so it must agree with the same mapping run on the whole
/// parsed document.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFeeds(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let body = Data(bytes: data + 1, count: size - 1)
    switch data[0] % 9 {
    case 0:
        _ = try? ESPNScoreboardNormalizer(sport: "soccer").normalize(body)
        _ = try? ESPNScoreboardNormalizer(sport: "basketball", clockDirection: .down).normalize(body)
        _ = try? ESPNScoreboardNormalizer().normalize(body)  // the sport from the body's leagues
    case 1: _ = try? FootballDataNormalizer().normalize(body)
    case 2:
        _ = try? BinanceTickerNormalizer().normalize(body)
        _ = try? BinanceTickerNormalizer(symbols: ["BTCUSDT", "BNBUSDT"]).normalize(body)
    case 3: _ = try? CoinbaseTickerNormalizer(product: "BTC-USD").normalize(body)
    case 4:
        _ = try? KrakenTickerNormalizer().normalize(body)
        _ = try? KrakenTickerNormalizer(symbols: ["BCHEUR"]).normalize(body)
    case 5:
        _ = try? CoinGeckoPriceNormalizer().normalize(body)
        _ = try? CoinGeckoPriceNormalizer(currency: "eur", coins: ["solana", "bitcoin"]).normalize(body)
    case 6: compare(demo, body)
    case 7:
        let parts = body.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let value = try? JSONParser.parse(Data(parts[0])),
            let mapping = try? JSONValueDecoder().decode(GenericMapping.self, from: value),
            let normalizer = try? GenericNormalizer(mapping)
        else { return 0 }
        compare(normalizer, Data(parts[1]))
    default:
        let url = String(decoding: body, as: UTF8.self)
        for preset in FeedPreset.allCases { _ = try? preset.normalizer(options: PresetOptions(), url: url) }
    }
    return 0
}

/// The mapping of `Samples/demo/liverelay.json`.
private let demo: GenericNormalizer = {
    func field(_ pointer: String, _ type: FieldType, optional: Bool = false) -> FieldMapping {
        FieldMapping(pointer: pointer, type: type, optional: optional)
    }
    let competitor = "/competitions/0/competitors/"
    return try! GenericNormalizer(
        GenericMapping(
            entities: "/events", id: "/id",
            fields: [
                "start": field("/date", .time), "state": field("/status/type/state", .string),
                "status": field("/status/type/name", .string), "period": field("/status/period", .int, optional: true),
                "clock.seconds": field("/status/clock", .int), "clock.display": field("/status/displayClock", .string),
                "home.name": field(competitor + "0/team/displayName", .string),
                "home.score": field(competitor + "0/score", .int),
                "home.shootout": field(competitor + "0/shootoutScore", .int, optional: true),
                "away.name": field(competitor + "1/team/displayName", .string),
                "away.score": field(competitor + "1/score", .decimal),
                "away.live": field(competitor + "1/live", .bool, optional: true),
            ]))
}()

/// The selective parse and the whole document must give the same facts, or both refuse the body.
private func compare(_ normalizer: GenericNormalizer, _ body: Data) {
    let selective = Result { () throws(NormalizationFailure) in try normalizer.normalize(body) }
    guard let document = try? JSONParser.parse(body, numbers: .decimal) else {
        invariant((try? selective.get()) == nil, "facts from a body that is not JSON")
        return
    }
    let whole = Result { () throws(NormalizationFailure) in try normalizer.normalize(document: document) }
    switch (selective, whole) {
    case (.success(let a), .success(let b)): invariant(a == b, "selective and whole-document facts differ")
    case (.failure, .failure): break
    case (.success, .failure(let e)): fatalError("invariant violated: only the whole document is refused: \(e)")
    case (.failure(let e), .success): fatalError("invariant violated: only the selective parse is refused: \(e)")
    }
}

@_cdecl("fuzz_feeds_main")
public func fuzzFeedsMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzzFeeds)
}
