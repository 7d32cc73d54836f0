/// The alert that lights the screen for an important update (a goal), as APNs `aps.alert` carries it.
///
/// Plain `title`/`body` text, or localisation keys the app resolves on the device (`title-loc-key` with
/// `title-loc-args`, `loc-key` with `loc-args`), or both: the device prefers the localised text.
public struct LiveActivityAlert: Sendable, Hashable, Codable {
    /// The title, shown as written.
    public var title: String?
    /// The body, shown as written.
    public var body: String?
    /// A sound file name in the app bundle, or `"default"`.
    public var sound: String?
    /// A key in the app's `Localizable.strings` for the title.
    public var titleLocKey: String?
    /// Values for the format specifiers of `titleLocKey`.
    public var titleLocArgs: [String]?
    /// A key in the app's `Localizable.strings` for the body.
    public var locKey: String?
    /// Values for the format specifiers of `locKey`.
    public var locArgs: [String]?

    enum CodingKeys: String, CodingKey {
        case title, body, sound
        case titleLocKey = "title-loc-key"
        case titleLocArgs = "title-loc-args"
        case locKey = "loc-key"
        case locArgs = "loc-args"
    }

    /// Creates an alert; every part is optional.
    public init(
        title: String? = nil, body: String? = nil, sound: String? = nil, titleLocKey: String? = nil,
        titleLocArgs: [String]? = nil, locKey: String? = nil, locArgs: [String]? = nil
    ) {
        self.title = title
        self.body = body
        self.sound = sound
        self.titleLocKey = titleLocKey
        self.titleLocArgs = titleLocArgs
        self.locKey = locKey
        self.locArgs = locArgs
    }

    /// Whether the alert has something to show: a title or body, plain or localised.
    public var hasText: Bool { title != nil || body != nil || titleLocKey != nil || locKey != nil }
}
