import Feeds
import Foundation
import LiveRelayCore
import Testing

/// Binance, Coinbase Exchange, Kraken and CoinGecko on the real recordings (CoinGecko: hand-written) and
/// on edge cases. Prices and volumes stay exact decimals.
@Suite struct MarketPresetTests {
    @Test func binanceAllSymbolsRecording() throws {
        let body = try PresetTestSupport.recording("binance-ticker-24hr-all-symbols.json")
        let all = try BinanceTickerNormalizer().normalize(body)
        #expect(all.count == 595)
        #expect(
            all["BTCUSDT"]?.value
                == [
                    "symbol": "BTCUSDT", "price": .dec("9912.33"), "bid": .dec("9907.65"), "ask": .dec("9911.68"),
                    "open24h": .dec("10360.04"), "volume": .dec("47889.130573"),
                    "quoteVolume": .dec("483208782.28023141"),
                    "change24h": ["percent": .dec("-4.322"), "absolute": .dec("-447.71")],
                    "high24h": .dec("10366.91"), "low24h": .dec("9762"), "time": 1_566_445_106,
                ])
        #expect(all["ETHBTC"]?["price"]?.jsonString() == "0.018647", "decimals are exact, never via Double")
        let followed = try BinanceTickerNormalizer(symbols: ["BTCUSDT", "ethbtc", "DELISTED"]).normalize(body)
        #expect(followed.keys.sorted() == ["BTCUSDT", "ethbtc"], "a followed symbol keeps the config's spelling")
        #expect(followed["ethbtc"]?["symbol"] == "ETHBTC", "and the symbol fact is Binance's")
    }

    @Test func binancePriceTickerMiniTickerAndOneSymbol() throws {
        let prices = #"[{"symbol": "LTCBTC", "price": "4.00000200"}, {"symbol": "ETHBTC", "price": "0.07946600"}]"#
        let facts = try BinanceTickerNormalizer().normalize(Data(prices.utf8))
        #expect(facts["LTCBTC"]?.value == ["symbol": "LTCBTC", "price": .dec("4.000002")])
        let mini =
            #"{"symbol": "BNBBTC", "openPrice": "0.00095000", "highPrice": "0.0010", "lowPrice": "0.0009", "lastPrice": "0.00099000", "volume": "31.5", "quoteVolume": "0.03", "openTime": 1499783499040, "closeTime": 1499869899040, "firstId": 0, "lastId": 18150, "count": 18151}"#
        let one = try BinanceTickerNormalizer().normalize(Data(mini.utf8))
        #expect(one["BNBBTC"]?["price"] == .dec("0.00099"))
        #expect(one["BNBBTC"]?["bid"] == nil)
        #expect(one["BNBBTC"]?["time"] == 1_499_869_899)
        #expect(one["BNBBTC"]?["open24h"] == .dec("0.00095"))
        #expect(one["BNBBTC"]?["change24h.absolute"] == .dec("0.00004"), "MINI has no change: price − open, exact")
        #expect(one["BNBBTC"]?["change24h.percent"] == .dec("4.2105"), "4.210526…, to 4 decimals")
        #expect(one["BNBBTC"]?["quoteVolume"] == .dec("0.03"))
    }

    @Test func aSymbolThatDisappearsIsGoneNotNull() throws {
        let before = #"[{"symbol": "BTCUSDT", "price": "9912.33"}, {"symbol": "BNBUSDT", "price": "26.45"}]"#
        let after = #"[{"symbol": "BTCUSDT", "price": "9912.33"}]"#
        let normalizer = BinanceTickerNormalizer(symbols: ["BTCUSDT", "BNBUSDT"])
        let changes = ChangeDetector.changes(
            feed: "markets", previous: try normalizer.normalize(Data(before.utf8)),
            current: try normalizer.normalize(Data(after.utf8)))
        #expect(changes.count == 1)
        #expect(changes.first?.entity.id == "BNBUSDT")
        #expect(changes.first?.current == nil, "the entity is gone: rules see curr = null, never a null price")
    }

    @Test func binanceErrorsAndWrongShapes() {
        let banned = PresetTestSupport.failure(
            BinanceTickerNormalizer(),
            #"{"code": -1003, "msg": "Way too many requests; IP banned until 1566445106532."}"#)
        #expect(banned?.kind == .provider)
        #expect(
            banned?.message == "Binance reported error -1003: Way too many requests; IP banned until 1566445106532.")
        #expect(
            PresetTestSupport.failure(BinanceTickerNormalizer(), #"[{"unexpected": true}]"#)?.message
                == "/0/symbol is missing")
        #expect(
            PresetTestSupport.failure(BinanceTickerNormalizer(), #"[{"symbol": "X", "lastPrice": 1e400x}]"#)?.kind
                == .invalidJSON)
        #expect(
            PresetTestSupport.failure(BinanceTickerNormalizer(), #"[{"symbol": "X", "lastPrice": "NaN"}]"#)?.message
                == #"symbol X: /0/lastPrice is the string "NaN", expected a decimal number"#)
    }

    @Test func coinbaseRecording() throws {
        let facts = try CoinbaseTickerNormalizer(product: "BTC-USD").normalize(
            try PresetTestSupport.recording("coinbase-exchange-ticker-btc-usd.json"))
        #expect(
            facts == [
                "BTC-USD": Facts([
                    "symbol": "BTC-USD", "currency": "USD",
                    "price": .dec("4417.01"), "bid": .dec("4417"), "ask": .dec("4417.01"),
                    "volume": .dec("7878.23402368"), "time": 1_507_003_231,
                ])
            ])
        let notFound = PresetTestSupport.failure(
            CoinbaseTickerNormalizer(product: "BTC-XYZ"), #"{"message": "NotFound"}"#)
        #expect(notFound?.kind == .provider)
        #expect(notFound?.message == "Coinbase reported: NotFound")
    }

    @Test func krakenRecordingAndItsOwnPairNames() throws {
        let facts = try KrakenTickerNormalizer().normalize(try PresetTestSupport.recording("kraken-ticker-bcheur.json"))
        #expect(
            facts["BCHEUR"]?.value
                == [
                    "symbol": "BCHEUR", "price": .dec("355.4"), "bid": .dec("354.3"), "ask": .dec("355.4"),
                    "volume": .dec("4433.77288826"), "high24h": .dec("369"), "low24h": .dec("346"),
                    "openToday": .dec("353.7"),
                    "changeToday": ["absolute": .dec("1.7"), "percent": .dec("0.4806")],
                ])
        let xbt = #"""
            {"error": ["WGeneral:Notice"], "result": {"XXBTZUSD": {"a": ["67187.40000", "1", "1.000"], "b": ["67187.30000", "2", "2.000"],
              "c": ["67187.40000", "0.00100000"], "v": ["1000.1", "2000.2"], "p": ["1", "1"], "t": [1, 2],
              "l": ["66000.0", "65000.0"], "h": ["68000.0", "69000.0"], "o": "67000.0"}}}
            """#
        #expect(
            try KrakenTickerNormalizer().normalize(Data(xbt.utf8)).keys.sorted() == ["XBTUSD"],
            "warnings are not errors")
        #expect(try KrakenTickerNormalizer(symbols: ["BTC/USD"]).normalize(Data(xbt.utf8)).keys.sorted() == ["BTC/USD"])
        #expect(
            try KrakenTickerNormalizer(symbols: ["XXBTZUSD"]).normalize(Data(xbt.utf8)).keys.sorted() == ["XXBTZUSD"])
        #expect(try KrakenTickerNormalizer(symbols: ["ETHUSD"]).normalize(Data(xbt.utf8)).isEmpty)
    }

    /// Kraken's `o` opens the UTC day, not a 24-hour window: the change since it is `changeToday`, and
    /// Kraken gives no `change24h`.
    @Test func krakenTheChangeSinceTodaysOpen() throws {
        func ticker(last: String, open: String) -> Data {
            Data(
                #"""
                {"error": [], "result": {"XETHZEUR": {"a": ["1", "1", "1"], "b": ["1", "1", "1"], "c": ["\#(last)", "1"],
                  "v": ["1", "2"], "l": ["1", "1"], "h": ["1", "1"], "o": "\#(open)"}}}
                """#.utf8)
        }
        let fall = try KrakenTickerNormalizer().normalize(ticker(last: "2999.99", open: "3150.00"))["ETHEUR"]
        #expect(fall?["symbol"] == "ETHEUR")
        #expect(fall?["openToday"] == .dec("3150"))
        #expect(fall?["changeToday.absolute"] == .dec("-150.01"), "exact")
        #expect(fall?["changeToday.percent"] == .dec("-4.7622"), "-4.762222…, to 4 decimals")
        #expect(fall?["change24h"] == nil, "no 24-hour change, rather than a wrong one")
        let half = try KrakenTickerNormalizer().normalize(ticker(last: "1.0000005", open: "1"))["ETHEUR"]
        #expect(half?["changeToday.percent"] == .dec("0.0001"), "0.00005 rounds half away from zero")
        let down = try KrakenTickerNormalizer().normalize(ticker(last: "0.9999995", open: "1"))["ETHEUR"]
        #expect(down?["changeToday.percent"] == .dec("-0.0001"), "-0.00005 rounds away from zero")
        let zero = try KrakenTickerNormalizer().normalize(ticker(last: "1", open: "0"))["ETHEUR"]
        #expect(zero?["changeToday.absolute"] == .dec("1"))
        #expect(zero?["changeToday.percent"] == nil, "no percentage of nothing")
    }

    @Test func krakenErrorsTravelInTheBodyWithHTTP200() {
        let failure = PresetTestSupport.failure(
            KrakenTickerNormalizer(), #"{"error": ["EQuery:Unknown asset pair"], "result": {}}"#)
        #expect(failure?.kind == .provider)
        #expect(failure?.message == "Kraken reported EQuery:Unknown asset pair")
        let short = PresetTestSupport.failure(
            KrakenTickerNormalizer(),
            #"{"error": [], "result": {"BCHEUR": {"a": ["1"], "b": ["1"], "c": ["1"], "v": ["1"]}}}"#)
        #expect(short?.message == "pair BCHEUR: /result/BCHEUR/v has 1 elements, expected at least 2")
    }

    @Test func coinGeckoHandWrittenSample() throws {
        let facts = try CoinGeckoPriceNormalizer(currency: "usd").normalize(
            try PresetTestSupport.sample("sequences/coingecko-sol/01-calm.json"))
        #expect(facts.keys.sorted() == ["bitcoin", "ethereum", "solana"])
        #expect(
            facts["bitcoin"]?.value
                == [
                    "symbol": "bitcoin", "currency": "USD",
                    "price": .dec("67187.33"), "change24h": ["percent": .dec("-1.2304")],
                    "quoteVolume": .dec("31260929299.52"),
                    "marketCap": .dec("1317802988326.25"), "time": 1_711_356_300,
                ])
        let onlyPrice = try CoinGeckoPriceNormalizer(currency: "EUR", coins: ["bitcoin"]).normalize(
            Data(#"{"bitcoin": {"eur": 61977.1}, "ethereum": {"eur": 3135}}"#.utf8))
        #expect(
            onlyPrice == ["bitcoin": Facts(["symbol": "bitcoin", "currency": "EUR", "price": .dec("61977.1")])])
        let limited = PresetTestSupport.failure(
            CoinGeckoPriceNormalizer(),
            #"{"status": {"error_code": 429, "error_message": "You've exceeded the Rate Limit."}}"#)
        #expect(limited?.kind == .provider)
        let wrongCurrency = PresetTestSupport.failure(
            CoinGeckoPriceNormalizer(currency: "usd"), #"{"bitcoin": {"eur": 1}}"#)
        #expect(wrongCurrency?.message == "coin bitcoin: /bitcoin/usd is missing")
    }
}
