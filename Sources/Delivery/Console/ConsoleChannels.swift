import Foundation
import Synchronization

/// The console provider's broadcast channels: each channel-management request is printed as the APNs
/// request it stands for and answered as APNs would, with a random channel id; nothing leaves the machine.
final class ConsoleChannels: ChannelBackend {
    private let bundleID: String
    private let write: @Sendable (String) -> Void
    private let open = Mutex<[String]>([])

    init(bundleID: String, write: @escaping @Sendable (String) -> Void) {
        self.bundleID = bundleID
        self.write = write
    }

    func create(_ policy: APNsChannelClient.StoragePolicy) async throws(ChannelFailure) -> String {
        let id = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        open.withLock { $0.append(id) }
        write(
            render(
                "POST", "channels",
                body: #"{"message-storage-policy":\#(policy.rawValue),"push-type":"LiveActivity"}"#)
                + "\n(answered 201, apns-channel-id: \(id))")
        return id
    }

    func delete(_ id: String) async throws(ChannelFailure) {
        open.withLock { $0.removeAll { $0 == id } }
        write(render("DELETE", "channels", channel: id))
    }

    func list() async throws(ChannelFailure) -> [String] { open.withLock { $0 } }

    private func render(_ method: String, _ resource: String, channel: String? = nil, body: String? = nil) -> String {
        var lines = [":method: \(method)", ":path: /1/apps/\(bundleID)/\(resource)"]
        if let channel { lines.append("apns-channel-id: \(channel)") }
        if let body {
            lines.append("content-type: application/json")
            lines += ["", body]
        }
        return lines.joined(separator: "\n")
    }
}
