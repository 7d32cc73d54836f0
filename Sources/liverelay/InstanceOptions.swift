import ArgumentParser
import Foundation
import Worker

/// What differs between instances of one config (several workers on one host): the API's host and port and
/// the worker's name. Each is a flag, else an environment variable, else the config's value: a flag wins
/// over the environment, the environment over the config file.
struct InstanceOptions: ParsableArguments {
    @Option(help: "The API's address (else $LIVERELAY_API_HOST, else the config's api.host).")
    var apiHost: String?

    @Option(help: "The API's port, 0 for a free one (else $LIVERELAY_API_PORT, else the config's api.port).")
    var apiPort: Int?

    @Option(help: "This worker's name on a shared store (else $LIVERELAY_WORKER, else the config's postgres.worker).")
    var worker: String?

    /// The values that override the config, read from the flags and `environment`.
    struct Overrides: Equatable {
        var apiHost: String?
        var apiPort: Int?
        var worker: String?

        /// Puts them into the loaded config.
        func apply(to loaded: inout LoadedConfig) {
            if let apiHost { loaded.config.api.host = apiHost }
            if let apiPort { loaded.config.api.port = apiPort }
            if let worker { loaded.config.postgres?.worker = worker }
        }
    }

    func overrides(_ environment: [String: String]) throws -> Overrides {
        var port = apiPort
        if port == nil, let raw = environment["LIVERELAY_API_PORT"] {
            guard let value = Int(raw) else { throw ValidationError("LIVERELAY_API_PORT=\(raw): not a port number") }
            port = value
        }
        if let port, !(0...65_535).contains(port) {
            throw ValidationError("the API port \(port) is not between 0 and 65535")
        }
        let host = apiHost ?? environment["LIVERELAY_API_HOST"]
        if let host, host.isEmpty { throw ValidationError("the API host is empty") }
        let worker = worker ?? environment["LIVERELAY_WORKER"]
        if let worker, worker.isEmpty { throw ValidationError("the worker name is empty") }
        return Overrides(apiHost: host, apiPort: port, worker: worker)
    }
}
