/// The alert that lights the screen for an important update (a goal), as APNs `aps.alert` carries it.
public struct LiveActivityAlert: Sendable, Hashable, Codable {
    public var title: String?
    public var body: String?
    /// A sound file name in the app bundle, or `"default"`.
    public var sound: String?

    public init(title: String? = nil, body: String? = nil, sound: String? = nil) {
        self.title = title
        self.body = body
        self.sound = sound
    }
}
