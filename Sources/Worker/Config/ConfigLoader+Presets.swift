import Feeds

extension ConfigLoader {
    /// A problem with how a feed reads its bodies, at a pointer below the feed.
    struct FeedProblem: Error {
        var pointer: String
        var atKey = false
        var message: String
    }

    /// The feed's normaliser: its generic mapping or its preset, exactly one of them.
    static func normalizer(for feed: FeedConfig) -> Result<any FeedNormalizer, FeedProblem> {
        switch (feed.mapping, feed.preset) {
        case (let mapping?, nil):
            do {
                return .success(try GenericNormalizer(mapping))
            } catch {
                return .failure(FeedProblem(pointer: "/mapping/" + error.field, message: error.message))
            }
        case (nil, let preset?):
            do {
                return .success(try preset.name.normalizer(options: preset.options, url: feed.url))
            } catch {
                return .failure(
                    FeedProblem(pointer: "/preset" + (error.option.map { "/" + $0 } ?? ""), message: error.message))
            }
        case (.some, .some):
            return .failure(
                FeedProblem(
                    pointer: "/preset", atKey: true,
                    message: "give either \"mapping\" or \"preset\", not both"))
        case (nil, nil):
            return .failure(
                FeedProblem(
                    pointer: "", atKey: false,
                    message:
                        "a feed needs a \"preset\" (\(FeedPreset.allCases.map(\.rawValue).joined(separator: ", "))) or a generic \"mapping\""
                ))
        }
    }
}
