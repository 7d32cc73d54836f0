import Delivery
import Foundation
import HTTP
public import LiveRelayCore
public import Rules

extension LoadedConfig {
    /// What `run` would refuse at start that the schema cannot see, found without sending anything: each
    /// provider's credentials read and parsed (an APNs `.p8` that is not a P-256 key, a service-account file
    /// that is not one, a secret that is not set), the API's bearer token, and routes to unknown providers.
    /// - Parameter variables: the environment secret references read.
    public func startProblems(rules: RuleSet, variables: [String: String]) -> [Diagnostic] {
        var problems: [Diagnostic] = []
        func problem(_ message: String, at pointer: String) {
            problems.append(Diagnostic(file: path, location: location(pointer), message: message))
        }
        for entry in providerEntries {
            let context = ProviderContext(
                bundleID: entry.bundleID, expiration: entry.expiration, now: { 0 }, output: { _ in },
                readSecret: { [directory] (reference: SecretReference) throws(SecretError) -> Secret in
                    try reference.resolve(baseDirectory: directory, environment: variables)
                },
                openTransport: { (_: ProviderContext.TransportShape) throws(HTTPError) -> any HTTPTransport in
                    UnconnectedTransport()
                })
            do {
                _ = try entry.settings.makeProvider(context)
            } catch {
                problem(entries(prefix: entry) + error.description, at: pointer(of: entry))
            }
        }
        if let reference = config.api.bearerToken {
            do {
                _ = try reference.resolve(baseDirectory: directory, environment: variables)
            } catch {
                problem("api.bearer-token: \(error)", at: "/api/bearer-token")
            }
        }
        do {
            _ = try routes(for: rules)
        } catch {
            problems += error.items
        }
        // The state file: `run` would fail to open a directory or a file in a folder that is not there.
        let state = resolve(config.state)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: state, isDirectory: &isDirectory), isDirectory.boolValue {
            problem("state: \(config.state) is a directory, not a state file", at: "/state")
        } else {
            let folder = URL(fileURLWithPath: state).deletingLastPathComponent().path
            if !FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) || !isDirectory.boolValue {
                problem("state: the folder of \(config.state) does not exist", at: "/state")
            } else if !FileManager.default.isWritableFile(atPath: folder) {
                problem("state: the folder of \(config.state) is not writable", at: "/state")
            }
        }
        return problems
    }

    /// Where a provider entry is written: `/providers/1`, or `/provider`.
    private func pointer(of entry: ProviderConfig) -> String {
        // Ids differ across `provider` and `providers`, so an id found in `providers` is written there.
        config.providers.firstIndex { $0.id == entry.id }.map { "/providers/\($0)" } ?? "/provider"
    }

    /// `providers[1] (pw): ` for an entry of `providers`; nothing for the default provider.
    private func entries(prefix entry: ProviderConfig) -> String {
        guard let index = config.providers.firstIndex(where: { $0.id == entry.id }),
            !(config.defaultIsFirstOfProviders && index == 0)
        else { return "" }
        return "providers[\(index)] (\(entry.id)): "
    }
}

/// A transport for building providers to check them: it sends nothing.
struct UnconnectedTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        throw HTTPError(code: .other, url: request.url, message: "not connected: checking sends nothing")
    }
}
