public import Crypto
import Foundation
public import LiveRelayCore

/// The `.p8` key APNs token authentication signs with, and the ids that go with it. Mints the ES256 JSON
/// Web Tokens APNs expects in `authorization: bearer …`.
///
/// The key never leaves this type: its description names only the key id and team id.
public struct APNsSigningKey: Sendable, CustomStringConvertible {
    /// The 10-character key id from the developer account (the JWT header's `kid`).
    public let keyID: String
    /// The 10-character team id (the JWT's `iss`).
    public let teamID: String
    private let key: P256.Signing.PrivateKey

    /// Why a key could not be used. Says which key, never what it contains.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong.
        public var message: String
        public var description: String { message }
    }

    /// Reads a `.p8` file's content (PEM, PKCS#8, P-256).
    public init(pem: Secret, keyID: String, teamID: String) throws(Failure) {
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: pem.value)
        } catch {
            throw Failure(message: "the APNs key \(keyID) is not a PEM-encoded P-256 private key (.p8)")
        }
        self.keyID = keyID
        self.teamID = teamID
    }

    /// Uses an existing key (tests generate one).
    public init(key: P256.Signing.PrivateKey, keyID: String, teamID: String) {
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
    }

    /// The public half, to verify tokens with.
    public var publicKey: P256.Signing.PublicKey { key.publicKey }

    /// `APNs key ABC123DEFG of team DEF123GHIJ`: safe to log.
    public var description: String { "APNs key \(keyID) of team \(teamID)" }

    /// A provider token issued at `issuedAt` (UNIX seconds): `base64url(header).base64url(claims).signature`.
    public func token(issuedAt: Int) throws(Failure) -> String {
        do {
            return try JSONWebToken.signed(
                header: Header(alg: "ES256", kid: keyID), claims: Claims(iss: teamID, iat: issuedAt)
            ) {
                try key.signature(for: $0).rawRepresentation
            }
        } catch .encoding {
            throw Failure(message: "cannot encode the provider token of \(self)")
        } catch {
            throw Failure(message: "cannot sign the provider token with \(self)")
        }
    }

    /// The JOSE header of an APNs provider token.
    struct Header: Codable {
        var alg: String
        var kid: String
    }

    /// The claims of an APNs provider token: the team and the issue time (numeric, UNIX seconds).
    struct Claims: Codable {
        var iss: String
        var iat: Int
    }
}
