import Crypto
import Delivery
import Foundation
import HTTP
import LiveRelayCore
import LiveRelayTesting
import Synchronization

/// A simulated wall clock in UNIX seconds, shared by the provider and the fake APNs.
final class SimulatedTime: Sendable {
    private let seconds: Mutex<Int>
    init(_ start: Int = 1_783_101_600) { seconds = Mutex(start) }
    var now: Int { seconds.withLock { $0 } }
    func advance(by delta: Int) { seconds.withLock { $0 += delta } }
}

/// The real APNs provider, over the real `CurlTransport` or the push lane (HTTP/2 + TLS with the test CA),
/// against the fake APNs, with a simulated wall clock.
struct APNsTestbed {
    static let authority = try! TestCertificateAuthority(extraDNSNames: ["api.push.apple.com"])
    static let bundleID = "com.example.scores"

    let key: APNsSigningKey
    let fake: FakeAPNs
    let transport: any HTTPTransport
    let provider: APNsProvider
    let time: SimulatedTime

    /// A Live Activity token: 80 bytes, so 160 hex digits (longer than a 64-digit device token).
    static func token(_ n: Int) -> String {
        String(format: "%04x", n) + String(repeating: "5f", count: 78)
    }

    static func with(
        maxConcurrentStreams: Int? = nil, connections: Int = 1, refresh: Int = 50 * 60, lane: Bool = false,
        tokenCache: (any ProviderTokenCache)? = nil, configure: (inout APNsProvider.Configuration) -> Void = { _ in },
        _ body: (APNsTestbed) async throws -> Void
    ) async throws {
        let key = APNsSigningKey(key: P256.Signing.PrivateKey(), keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
        let time = SimulatedTime()
        let fake = try await FakeAPNs.start(
            authority: authority,
            configuration: FakeAPNs.Configuration(
                keyID: key.keyID, teamID: key.teamID, publicKey: key.publicKey, bundleID: bundleID,
                maxConcurrentStreams: maxConcurrentStreams, now: { time.now }))
        let transport: any HTTPTransport
        let shutdown: () -> Void
        if lane {
            let pushLane = try HTTP2Lane(
                configuration: HTTP2Lane.Configuration(
                    caFile: authority.caFile, connections: connections, connectionsPerOrigin: 1))
            (transport, shutdown) = (pushLane, pushLane.shutdown)
        } else {
            let curl = try CurlTransport(
                configuration: CurlTransport.Configuration(
                    caFile: authority.caFile, maxConnectionsPerHost: 1, threads: connections))
            (transport, shutdown) = (curl, curl.shutdown)
        }
        var configuration = APNsProvider.Configuration(
            endpoint: APNsEndpoint(url: fake.url, environment: .sandbox), bundleID: bundleID,
            tokenRefreshInterval: refresh)
        // Generous: the suite runs in parallel on two cores, and a timeout must not stand in for an answer.
        configuration.requestTimeout = .seconds(60)
        configure(&configuration)
        let provider = APNsProvider(
            configuration: configuration, key: key, transport: transport, now: { time.now }, tokenCache: tokenCache)
        let bed = APNsTestbed(key: key, fake: fake, transport: transport, provider: provider, time: time)
        do {
            try await body(bed)
        } catch {
            shutdown()
            try? await fake.stop()
            throw error
        }
        shutdown()
        try await fake.stop()
    }

    static func update(_ n: Int = 0, at timestamp: Int = 1_783_101_700) -> LiveActivityPush {
        LiveActivityPush(
            activity: ActivityKey("match-\(n)"), attributesType: "MatchAttributes", event: .update,
            timestamp: timestamp,
            contentState: ["homeScore": .int(n)], priority: .low)
    }
}
