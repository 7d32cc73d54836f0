import Feeds
import Foundation
import LiveRelayCore
import LiveRelayTesting
import Testing

/// Every preset's fact catalogue against what the preset really produces from every recorded and sample
/// body (and a few hand-written ones for what the recordings lack): nothing produced is missing from it,
/// nothing in it is never produced, an unconditional fact is in every entity, and the documentation lists
/// exactly the catalogue.
@Suite struct FactCatalogueTests {
    /// A body and the normaliser that reads it.
    struct Sample: Sendable {
        let name: String
        let normalizer: any FeedNormalizer
        let body: Data
    }

    /// The bodies of a replay sequence, named by sequence and step.
    static func sequence(_ name: String, _ normalizer: any FeedNormalizer) throws -> [Sample] {
        try FeedServer.bodies(ofSequence: Repository.path("Samples/sequences/\(name)/sequence.json")).enumerated().map {
            Sample(name: "\(name) step \($0.offset + 1)", normalizer: normalizer, body: $0.element)
        }
    }

    static func recording(_ name: String, _ normalizer: any FeedNormalizer) throws -> Sample {
        Sample(name: name, normalizer: normalizer, body: try PresetTestSupport.recording(name))
    }

    static func text(_ name: String, _ normalizer: any FeedNormalizer, _ body: String) -> Sample {
        Sample(name: name, normalizer: normalizer, body: Data(body.utf8))
    }

    /// What each preset is tried on.
    static func samples(_ preset: FeedPreset) throws -> [Sample] {
        switch preset {
        case .espnScoreboard:
            let inferred = try preset.normalizer(options: PresetOptions(), url: nil)
            return try (1...3).map {
                try recording(
                    [
                        "espn-soccer-scoreboard-1-first-half.json", "espn-soccer-scoreboard-2-extra-time.json",
                        "espn-soccer-scoreboard-3-final-pens.json",
                    ][$0 - 1], inferred)
            } + sequence("espn-aus-egy-preset", inferred) + [
                text("NBA", ESPNScoreboardNormalizer(sport: "basketball"), ESPNScoreboardNormalizerTests.basketball)
            ]
        case .footballData:
            let normalizer = FootballDataNormalizer()
            return try [
                "football-data-pl-matches-1-halftime-paused.json", "football-data-pl-matches-2-in-play.json",
                "football-data-pl-matches-3-in-play-after-goal.json",
            ].map { try recording($0, normalizer) } + sequence("football-data-whu-ful", normalizer) + [
                text(
                    "a minute and a shoot-out", normalizer,
                    FootballDataNormalizerTests.match(
                        status: "PENALTY_SHOOTOUT", minute: "120", injury: "2",
                        score: #"""
                            {"winner": "AWAY_TEAM", "duration": "PENALTY_SHOOTOUT", "fullTime": {"home": 5, "away": 6},
                             "regularTime": {"home": 1, "away": 1}, "extraTime": {"home": 0, "away": 0},
                             "penalties": {"home": 4, "away": 5}}
                            """#))
            ]
        case .binance:
            let normalizer = BinanceTickerNormalizer()
            return try [recording("binance-ticker-24hr-all-symbols.json", normalizer)]
                + sequence("binance-btc-bnb", normalizer) + [
                    text(
                        "MINI", normalizer,
                        #"{"symbol": "BNBBTC", "openPrice": "0.00095", "highPrice": "0.001", "lowPrice": "0.0009", "lastPrice": "0.00099", "volume": "31.5", "quoteVolume": "0.03", "openTime": 1499783499040, "closeTime": 1499869899040, "firstId": 0, "lastId": 18150, "count": 18151}"#
                    ),
                    text("price ticker", normalizer, #"[{"symbol": "LTCBTC", "price": "4.00000200"}]"#),
                ]
        case .coinbaseExchange:
            let normalizer = CoinbaseTickerNormalizer(product: "BTC-USD")
            return try [recording("coinbase-exchange-ticker-btc-usd.json", normalizer)]
                + sequence("coinbase-btc-usd", normalizer)
        case .kraken:
            let normalizer = KrakenTickerNormalizer()
            return try [recording("kraken-ticker-bcheur.json", normalizer)] + sequence("kraken-bcheur", normalizer)
        case .coingecko:
            let normalizer = CoinGeckoPriceNormalizer(currency: "usd")
            return try sequence("coingecko-sol", normalizer) + [
                text("price only", normalizer, #"{"bitcoin": {"usd": 61977.1}}"#)
            ]
        }
    }

    /// Every entity's facts from every sample that normalises (a sequence may hold a provider's error on
    /// purpose), with the sample's name.
    static func entities(_ preset: FeedPreset) throws -> [(sample: String, facts: Facts)] {
        var out: [(String, Facts)] = []
        var failures = 0
        for sample in try samples(preset) {
            guard let entities = try? sample.normalizer.normalize(sample.body) else {
                failures += 1
                continue
            }
            out += entities.keys.sorted().map { ("\(sample.name), entity \($0)", entities[$0]!) }
        }
        #expect(failures <= 1, "only the one error step of a sequence fails")
        return out
    }

    /// The dotted path of every leaf of the facts, with its value.
    static func leaves(_ facts: Facts) -> [String: JSONValue] {
        Dictionary(uniqueKeysWithValues: Facts.changedPaths(from: nil, to: facts).map { ($0, facts[$0]!) })
    }

    static func fits(_ value: JSONValue, _ type: FieldType) -> Bool {
        switch (type, value) {
        case (.int, .int), (.time, .int), (.decimal, .decimal), (.string, .string), (.bool, .bool): true
        default: false
        }
    }

    @Test(arguments: FeedPreset.allCases)
    func everyFactProducedIsCataloguedWithItsType(preset: FeedPreset) throws {
        let catalogue = preset.factCatalogue
        let entities = try Self.entities(preset)
        #expect(entities.count > 3)
        for (sample, facts) in entities {
            for (path, value) in Self.leaves(facts) {
                guard let entry = catalogue[path: path] else {
                    Issue.record("\(preset.rawValue): \(sample) has \(path), which the catalogue lacks")
                    continue
                }
                #expect(Self.fits(value, entry.type), "\(preset.rawValue): \(sample): \(path) = \(value.jsonString())")
            }
        }
    }

    @Test(arguments: FeedPreset.allCases)
    func everyCatalogueEntryIsProducedAndAnUnconditionalOneAlways(preset: FeedPreset) throws {
        let entities = try Self.entities(preset)
        let produced = Set(entities.flatMap { Self.leaves($0.facts).keys })
        for entry in preset.factCatalogue {
            #expect(produced.contains(entry.path), "\(preset.rawValue): no sample produces \(entry.path)")
            if !entry.isConditional {
                let lacking = entities.filter { $0.facts[entry.path] == nil }.map(\.sample)
                #expect(
                    lacking.isEmpty,
                    "\(preset.rawValue): \(entry.path) is unconditional but missing in \(lacking.prefix(3))")
            }
        }
    }

    @Test(arguments: FeedPreset.allCases)
    func theCatalogueIsTheNormalisersAndItsPathsCanCoexist(preset: FeedPreset) throws {
        let catalogue = preset.factCatalogue
        for sample in try Self.samples(preset) {
            #expect(sample.normalizer.factCatalogue == catalogue)
        }
        #expect(Set(catalogue.paths).count == catalogue.count, "no path twice")
        for entry in catalogue {
            // `status` and `status.text` could not both be facts: one is a leaf, the other needs an object.
            #expect(!catalogue.paths.contains { $0.hasPrefix(entry.path + ".") }, "\(entry.path) is a leaf")
            #expect(!entry.meaning.contains("|") && !(entry.condition ?? "").contains("|"), "fits a Markdown table")
        }
    }

    /// One rule file serves every market preset: a name means one thing, of one type, wherever it appears.
    @Test func theMarketPresetsShareTheirNames() {
        let markets: [FeedPreset] = [.binance, .coinbaseExchange, .kraken, .coingecko]
        var types: [String: FieldType] = [:]
        for preset in markets {
            for entry in preset.factCatalogue {
                #expect(types[entry.path, default: entry.type] == entry.type, "\(entry.path) has one type")
                types[entry.path] = entry.type
            }
            #expect(preset.factCatalogue.paths.contains("price"))
            #expect(preset.factCatalogue.paths.contains("symbol"))
        }
        #expect(
            Set(types.keys) == [
                "symbol", "currency", "price", "bid", "ask", "open24h", "high24h", "low24h", "change24h.absolute",
                "change24h.percent", "volume", "quoteVolume", "marketCap", "time", "openToday",
                "changeToday.absolute", "changeToday.percent",
            ])
        let sports = ESPNScoreboardNormalizer.catalogue.paths
        #expect(FootballDataNormalizer.catalogue.paths.allSatisfy(sports.contains), "football-data's are ESPN's too")
    }

    /// The shared rule files read only facts their presets can give.
    @Test(arguments: [
        ("Rules/markets.rules.json", [FeedPreset.binance, .coinbaseExchange, .kraken, .coingecko]),
        ("Rules/sports.rules.json", [FeedPreset.espnScoreboard, .footballData]),
    ])
    func theSharedRulesReadCataloguedFacts(file: String, presets: [FeedPreset]) throws {
        let text = try String(contentsOf: Repository.url(file), encoding: .utf8)
        let known = Set(presets.flatMap(\.factCatalogue.paths))
        let regex = try NSRegularExpression(pattern: #""var": "(?:curr|prev)\.([A-Za-z0-9.]+)""#)
        let paths = regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map {
            String(text[Range($0.range(at: 1), in: text)!])
        }
        #expect(paths.count > 10)
        for path in Set(paths) { #expect(known.contains(path), "\(file) reads \(path), which no preset gives") }
    }

    @Test func aGenericMappingCataloguesItsDeclaredFacts() throws {
        let mapping = GenericMapping(
            entities: "/events", id: "/id",
            fields: [
                "home.score": FieldMapping(pointer: "/score/home", type: .int),
                "period": FieldMapping(pointer: "/status/period", type: .int, optional: true),
                "state": FieldMapping(pointer: "/status/state", type: .string),
            ])
        #expect(
            mapping.factCatalogue == [
                FactDescription("home.score", .int, "read from /score/home"),
                FactDescription(
                    "period", .int, "read from /status/period", condition: "when /status/period is present and not null"
                ),
                FactDescription("state", .string, "read from /status/state"),
            ])
        #expect(try GenericNormalizer(mapping).factCatalogue == mapping.factCatalogue)
        #expect(mapping.factCatalogue[path: "period"]?.jsonType == "integer")
    }

    /// A preset's table in the documentation, as the catalogue writes it.
    static func table(_ preset: FeedPreset) -> [String] {
        preset.factCatalogue.map {
            "| `\($0.path)` | \($0.type.rawValue) | \($0.meaning) | \($0.condition ?? "always") |"
        }
    }

    @Test(arguments: FeedPreset.allCases)
    func theDocumentationListsTheCatalogue(preset: FeedPreset) throws {
        let lines = try String(contentsOf: Repository.url("docs/configuration.md"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let heading = lines.firstIndex(of: "#### `\(preset.rawValue)`") else {
            Issue.record("docs/configuration.md has no heading #### `\(preset.rawValue)`")
            return
        }
        let rows = lines[(heading + 1)...].drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }
            .filter { $0.hasPrefix("| `") }
        #expect(Array(rows) == Self.table(preset), "expected:\n\(Self.table(preset).joined(separator: "\n"))")
    }
}
