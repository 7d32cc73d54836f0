public import Feeds
public import LiveRelayCore

/// A feed's `"preset"`: a name (`"binance"`), or an object with the name and the preset's options
/// (`{"name": "espn-scoreboard", "sport": "soccer"}`). See `docs/configuration.md`.
public struct PresetConfig: Sendable, Decodable {
    /// The preset.
    public var name: FeedPreset
    /// Its options for the normaliser.
    public var options: PresetOptions
    /// football-data.org: the API token, sent as `X-Auth-Token`.
    public var token: SecretReference?

    enum CodingKeys: String, CodingKey {
        case name, sport, symbols, product, currency, token
        case clockDirection = "clock-direction"
    }

    /// A preset with options.
    public init(name: FeedPreset, options: PresetOptions = PresetOptions(), token: SecretReference? = nil) {
        self.name = name
        self.options = options
        self.token = token
    }

    /// Decodes `"binance"` or `{"name": "binance", "symbols": […]}`.
    public init(from decoder: any Decoder) throws {
        if let name = try? decoder.singleValueContainer().decode(String.self) {
            self.init(name: try Self.preset(name, decoder.codingPath))
            return
        }
        let c = try decoder.container(keyedBy: CodingKeys.self)
        var options = PresetOptions()
        options.sport = try c.decodeIfPresent(String.self, forKey: .sport)
        options.symbols = try c.decodeIfPresent([String].self, forKey: .symbols)
        options.product = try c.decodeIfPresent(String.self, forKey: .product)
        options.currency = try c.decodeIfPresent(String.self, forKey: .currency)
        if let direction = try c.decodeIfPresent(String.self, forKey: .clockDirection) {
            guard let known = ClockDirection(rawValue: direction) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .clockDirection, in: c, debugDescription: "\"clock-direction\" must be \"up\" or \"down\"")
            }
            options.clockDirection = known
        }
        self.init(
            name: try Self.preset(try c.decode(String.self, forKey: .name), c.codingPath + [CodingKeys.name]),
            options: options, token: try c.decodeIfPresent(SecretReference.self, forKey: .token))
    }

    private static func preset(_ name: String, _ path: [any CodingKey]) throws -> FeedPreset {
        guard let preset = FeedPreset(rawValue: name) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: path,
                    debugDescription:
                        "unknown preset \"\(name)\" (known: \(FeedPreset.allCases.map(\.rawValue).joined(separator: ", ")))"
                ))
        }
        return preset
    }
}
