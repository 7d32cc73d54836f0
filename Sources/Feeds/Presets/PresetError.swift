/// A preset that cannot be built from its options, naming the option at fault.
public struct PresetError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The option's config key (`sport`), or `nil` for the preset as a whole.
    public var option: String?
    /// What is wrong.
    public var message: String
    /// `sport: the ESPN preset needs …`.
    public var description: String { option.map { "\($0): \(message)" } ?? message }

    /// Creates an error.
    public init(option: String?, message: String) {
        self.option = option
        self.message = message
    }
}
