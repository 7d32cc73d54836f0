public import Foundation

/// Where a secret comes from: an environment variable or a file. A config names the place, never the value.
public enum SecretReference: Sendable, Hashable, Codable, CustomStringConvertible {
    case environment(String)
    case file(String)

    private enum CodingKeys: String, CodingKey {
        case env, file
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let name = try c.decodeIfPresent(String.self, forKey: .env) {
            self = .environment(name)
        } else {
            self = .file(try c.decode(String.self, forKey: .file))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .environment(let name): try c.encode(name, forKey: .env)
        case .file(let path): try c.encode(path, forKey: .file)
        }
    }

    /// Names the place only, so it is safe to log.
    public var description: String {
        switch self {
        case .environment(let name): return "environment variable \(name)"
        case .file(let path): return "file \(path)"
        }
    }

    /// Reads the secret. Relative file paths resolve against `baseDirectory` (the config's folder).
    /// Trailing newlines of files are dropped. Errors name the place, never the content.
    public func resolve(
        baseDirectory: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(SecretError) -> Secret {
        switch self {
        case .environment(let name):
            guard let value = environment[name], !value.isEmpty else {
                throw SecretError(reference: self, reason: "is not set")
            }
            return Secret(value)
        case .file(let path):
            let full = path.hasPrefix("/") ? path : baseDirectory + "/" + path
            guard let data = FileManager.default.contents(atPath: full) else {
                throw SecretError(reference: self, reason: "cannot be read")
            }
            var text = String(decoding: data, as: UTF8.self)
            while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
            guard !text.isEmpty else { throw SecretError(reference: self, reason: "is empty") }
            return Secret(text)
        }
    }
}

/// A secret value. Its description is redacted, so interpolating it into a log line or an error leaks nothing.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The value itself: use it only to authenticate, never to print.
    public let value: String

    public init(_ value: String) { self.value = value }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
}

/// A secret that could not be read; says where it was looked for, never what it is.
public struct SecretError: Error, Sendable, CustomStringConvertible {
    public var reference: SecretReference
    public var reason: String
    public var description: String { "secret from \(reference) \(reason)" }
}
