public import Feeds
public import Foundation
public import LiveRelayCore
public import Rules

/// A config file read, checked and resolved: paths made absolute, secrets read, mappings compiled.
public struct LoadedConfig: Sendable {
    /// The config file, as the user named it.
    public var path: String
    /// Its folder; relative paths in the config resolve against it.
    public var directory: String
    public var config: LiveRelayConfig
    public var feeds: [FeedRuntime]
    /// The content-state contracts, by attributes type.
    public var contracts: [String: ContentContract] = [:]
    /// Where each value of the file is, for diagnostics found after loading.
    var map: SourceMap?

    /// Where the value at `pointer` (a JSON Pointer into the config) is written, if it is.
    func location(_ pointer: String) -> SourceLocation? {
        map?.location(pointer, preferKey: false)
    }

    /// Resolves a path written in the config.
    public func resolve(_ relative: String) -> String {
        ConfigLoader.resolve(relative, in: directory)
    }
}

/// Reads the config: JSON with positions, checked against `docs/liverelay.schema.json`, then decoded and
/// resolved. Every problem is a `file:line:column: key.path: message` diagnostic.
public enum ConfigLoader {
    /// A path written in the config at `directory`: absolute as written, else relative to the config's folder.
    static func resolve(_ file: String, in directory: String) -> String {
        file.hasPrefix("/") ? file : directory + "/" + file
    }

    /// The rule files (resolved against the config's folder) and feed ids a config names, read as plain JSON:
    /// what `check` still checks when the config itself is broken, with the facts of its preset feeds and
    /// what can be made of its contracts (``ContractLoader/read(path:resolvedPath:)``; their problems are the
    /// config's). `nil` when the file is not JSON.
    public static func ruleFilesOfBrokenConfig(path: String) -> (
        rules: [String], feeds: Set<String>, facts: [String: Set<String>], contracts: [String: ContentContract]
    )? {
        guard let data = FileManager.default.contents(atPath: path), let document = try? JSONParser.parse(data)
        else { return nil }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let rules = (document["rules"]?.arrayValue ?? []).compactMap(\.stringValue).map { resolve($0, in: directory) }
        let feeds = (document["feeds"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        // A feed on a preset publishes its facts whatever else is wrong in the config.
        var facts: [String: Set<String>] = [:]
        for feed in document["feeds"]?.arrayValue ?? [] {
            guard let id = feed["id"]?.stringValue,
                let name = feed["preset"]?.stringValue ?? feed["preset"]?["name"]?.stringValue,
                let preset = FeedPreset(rawValue: name)
            else { continue }
            facts[id] = Set(preset.factCatalogue.paths)
        }
        var contracts: [String: ContentContract] = [:]
        for file in (document["contracts"]?.arrayValue ?? []).compactMap(\.stringValue) {
            let resolved = URL(fileURLWithPath: resolve(file, in: directory)).standardized.path
            guard FileManager.default.isReadableFile(atPath: resolved),
                let contract = ContractLoader.read(path: resolved, resolvedPath: resolved).contract
            else { continue }
            if contracts[contract.attributesType] == nil { contracts[contract.attributesType] = contract }
        }
        return (rules, Set(feeds), facts, contracts)
    }

    public static func load(path: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(Diagnostics) -> LoadedConfig
    {
        let (document, map) = try SourceDocument.read(path: path, what: "config file")
        func diagnostic(_ pointer: String, atKey: Bool = false, _ message: String) -> Diagnostic {
            let location = keyPath(pointer)
            return Diagnostic(
                file: path, location: map.location(pointer, preferKey: atKey),
                message: location.isEmpty ? message : "\(location): \(message)")
        }
        let violations = ConfigSchema.schema.validate(document)
        guard violations.isEmpty else {
            throw Diagnostics(violations.map { diagnostic($0.pointer, atKey: $0.atKey, $0.message) })
        }
        let foreign = ConfigSchema.foreignProviderKeys(in: document, kinds: ProviderCatalog.kinds)
        guard foreign.isEmpty else {
            throw Diagnostics(foreign.map { diagnostic($0.pointer, atKey: true, $0.message) })
        }
        let config: LiveRelayConfig
        do {
            config = try JSONValueDecoder().decode(LiveRelayConfig.self, from: document)
        } catch {
            throw Diagnostics([diagnostic(error.pointer.description, error.message)])
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var problems: [Diagnostic] = []
        var feeds: [FeedRuntime] = []
        var seen = Set<String>()
        for (i, feed) in config.feeds.enumerated() {
            let base = "/feeds/\(i)"
            if !seen.insert(feed.id).inserted {
                problems.append(diagnostic(base + "/id", "duplicate feed id \"\(feed.id)\""))
            }
            let normalizer: any FeedNormalizer
            switch Self.normalizer(for: feed) {
            case .success(let built): normalizer = built
            case .failure(let problem):
                problems.append(diagnostic(base + problem.pointer, atKey: problem.atKey, problem.message))
                continue
            }
            var headers: [(String, String)] = []
            if let token = feed.preset?.token {
                do {
                    headers.append(
                        ("X-Auth-Token", try token.resolve(baseDirectory: directory, environment: environment).value))
                } catch {
                    problems.append(diagnostic(base + "/preset/token", error.description))
                }
            }
            for (name, value) in feed.headers.sorted(by: { $0.key < $1.key }) {
                let pointer = base + "/headers/" + JSONPointer.escape(name)
                guard Self.isHeaderName(name) else {
                    problems.append(
                        diagnostic(
                            pointer, atKey: true,
                            "\"\(name.prefix(64))\" is not a header name (letters, digits and !#$%&'*+-.^_`|~ only)"))
                    continue
                }
                let resolved: String
                switch value {
                case .plain(let v):
                    resolved = v
                case .secret(let ref):
                    do {
                        resolved = try ref.resolve(baseDirectory: directory, environment: environment).value
                    } catch {
                        problems.append(diagnostic(pointer, error.description))
                        continue
                    }
                }
                // CR or LF would start another header (or the body); NUL cuts the value short. The value itself
                // is never quoted: it may be a secret.
                guard !resolved.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
                    problems.append(
                        diagnostic(
                            pointer,
                            "header \(name): the value contains a line break or NUL, which would inject headers"))
                    continue
                }
                headers.append((name, resolved))
            }
            feeds.append(
                FeedRuntime(
                    id: feed.id, url: resolveURL(feed.url, directory: directory), interval: feed.interval,
                    timeout: feed.timeout, maxBodyBytes: feed.maxBodyBytes, longestWait: feed.longestWait,
                    longestMaxAge: feed.longestMaxAge, headers: headers, normalizer: normalizer))
        }
        for (pointer, url) in Self.providerEndpoints(document) where !Self.isSecureEndpoint(url) {
            problems.append(
                diagnostic(
                    pointer,
                    "\(redact(url)) must be https: credentials and device tokens travel on it (plain http only to "
                        + "a loopback address, 127.0.0.1, ::1 or localhost, as for a test server)"))
        }
        var providerIDs = Set<String>()
        if !config.defaultIsFirstOfProviders { providerIDs.insert(config.provider.id) }
        for (i, entry) in config.providers.enumerated() where !providerIDs.insert(entry.id).inserted {
            problems.append(
                diagnostic("/providers/\(i)", "duplicate provider id \"\(entry.id)\" (give each entry its own id)"))
        }
        for (i, rules) in config.rules.enumerated() {
            let resolved = resolve(rules, in: directory)
            if !FileManager.default.fileExists(atPath: resolved) {
                problems.append(diagnostic("/rules/\(i)", "no such rule file or directory: \(resolved)"))
            }
        }
        var contracts: [String: ContentContract] = [:]
        for (i, file) in config.contracts.enumerated() {
            let resolved = URL(fileURLWithPath: resolve(file, in: directory)).standardized.path
            // A contract file that is not there is the config's mistake: said where the config names it.
            guard FileManager.default.isReadableFile(atPath: resolved) else {
                problems.append(
                    diagnostic("/contracts/\(i)", "no such contract file (or it cannot be read): \(resolved)"))
                continue
            }
            switch ContractLoader.load(path: resolved, resolvedPath: resolved) {
            case .success(let contract):
                if let first = contracts[contract.attributesType] {
                    problems.append(
                        diagnostic(
                            "/contracts/\(i)",
                            "a second contract for \(contract.attributesType) (the first is \(first.file))"))
                }
                contracts[contract.attributesType] = contract
            case .failure(let found):
                problems += found.items
            }
        }
        guard problems.isEmpty else { throw Diagnostics(problems) }
        return LoadedConfig(
            path: path, directory: directory, config: config, feeds: feeds, contracts: contracts, map: map)
    }

    /// Every provider URL the config sets (`endpoint`, `token-endpoint`), with where it is.
    static func providerEndpoints(_ document: JSONValue) -> [(pointer: String, url: String)] {
        var entries: [(String, JSONValue)] = []
        if let provider = document["provider"] { entries.append(("/provider", provider)) }
        for (i, entry) in (document["providers"]?.arrayValue ?? []).enumerated() {
            entries.append(("/providers/\(i)", entry))
        }
        var found: [(String, String)] = []
        for (base, entry) in entries {
            for key in ["endpoint", "token-endpoint"] {
                if case .string(let url)? = entry[key] { found.append((base + "/" + key, url)) }
            }
        }
        return found
    }

    /// `https`, or `http` to a loopback address.
    static func isSecureEndpoint(_ url: String) -> Bool {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            return false
        }
        if scheme == "https" { return true }
        let host = (components.host ?? "").lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return scheme == "http" && (host == "localhost" || host == "::1" || host.hasPrefix("127."))
    }

    /// An HTTP header name (RFC 9110 token).
    static func isHeaderName(_ name: String) -> Bool {
        !name.isEmpty
            && name.unicodeScalars.allSatisfy { c in
                c.isASCII
                    && (c.properties.isAlphabetic || ("0"..."9").contains(c)
                        || "!#$%&'*+-.^_`|~".unicodeScalars.contains(c))
            }
    }

    /// `file:relative/path` resolves against the config's folder; other URLs stay as written.
    static func resolveURL(_ url: String, directory: String) -> String {
        guard url.hasPrefix("file:"), !url.hasPrefix("file://") else { return url }
        let rest = String(url.dropFirst("file:".count))
        return URL(fileURLWithPath: resolve(rest, in: directory)).standardizedFileURL
            .absoluteString
    }

    /// `/feeds/0/mapping/fields/home.score` → `feeds[0].mapping.fields["home.score"]`.
    static func keyPath(_ pointer: String) -> String {
        guard let p = try? JSONPointer(pointer) else { return pointer }
        var out = ""
        for token in p.tokens {
            if Int(token) != nil {
                out += "[\(token)]"
            } else if token.contains(".") || token.contains(" ") || token.isEmpty {
                out += "[\"\(token)\"]"
            } else {
                out += out.isEmpty ? token : "." + token
            }
        }
        return out
    }
}
