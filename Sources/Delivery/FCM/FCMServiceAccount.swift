import Foundation
public import LiveRelayCore
public import _CryptoExtras

/// A Google service account as its JSON key file describes it, and the RS256 JWT assertions it signs for
/// Google's OAuth 2.0 token endpoint (the "JWT bearer" grant FCM HTTP v1 authenticates with).
///
/// The private key never leaves this type: its description names only the account's e-mail and project.
public struct FCMServiceAccount: Sendable, CustomStringConvertible {
    /// The scope FCM HTTP v1 needs.
    public static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// Google's token endpoint, used when the key file names none.
    public static let googleTokenURI = "https://oauth2.googleapis.com/token"

    /// `client_email`: the JWT's `iss`.
    public let clientEmail: String
    /// `project_id`: the project messages are sent through.
    public let projectID: String
    /// `private_key_id`: the JWT header's `kid`.
    public let privateKeyID: String?
    /// `token_uri`: where assertions are exchanged for access tokens (the JWT's `aud`).
    public let tokenURI: String
    private let key: _RSA.Signing.PrivateKey

    /// Why a key file could not be used. Names the place it came from, never its content.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong.
        public var message: String
        public var description: String { message }
    }

    /// The key file's fields LiveRelay reads.
    struct KeyFile: Codable {
        var type: String?
        var projectID: String
        var privateKeyID: String?
        var privateKey: String
        var clientEmail: String
        var tokenURI: String?

        enum CodingKeys: String, CodingKey {
            case type
            case projectID = "project_id"
            case privateKeyID = "private_key_id"
            case privateKey = "private_key"
            case clientEmail = "client_email"
            case tokenURI = "token_uri"
        }
    }

    /// Reads a service-account key file's JSON (`{"type": "service_account", "private_key": …}`).
    public init(json: Secret) throws(Failure) {
        let file: KeyFile
        do {
            file = try JSONDecoder().decode(KeyFile.self, from: Data(json.value.utf8))
        } catch {
            throw Failure(message: "the service-account key is not a Google service-account JSON key file")
        }
        do {
            key = try _RSA.Signing.PrivateKey(pemRepresentation: file.privateKey)
        } catch {
            throw Failure(message: "the private key of service account \(file.clientEmail) is not an RSA PEM key")
        }
        clientEmail = file.clientEmail
        projectID = file.projectID
        privateKeyID = file.privateKeyID
        tokenURI = file.tokenURI ?? Self.googleTokenURI
    }

    /// Uses an existing key (tests generate one).
    public init(
        key: _RSA.Signing.PrivateKey, clientEmail: String, projectID: String, privateKeyID: String? = nil,
        tokenURI: String = Self.googleTokenURI
    ) {
        self.key = key
        self.clientEmail = clientEmail
        self.projectID = projectID
        self.privateKeyID = privateKeyID
        self.tokenURI = tokenURI
    }

    /// `service account x@y.iam.gserviceaccount.com (project p)`: safe to log.
    public var description: String { "service account \(clientEmail) (project \(projectID))" }

    /// A signed assertion issued at `issuedAt` (UNIX seconds), valid for an hour, for `audience` (the token
    /// endpoint it is sent to). RS256 with PKCS #1 v1.5 padding: Google rejects PSS.
    public func assertion(issuedAt: Int, audience: String) throws(Failure) -> String {
        let claims = Claims(iss: clientEmail, scope: Self.scope, aud: audience, iat: issuedAt, exp: issuedAt + 3600)
        do {
            return try JSONWebToken.signed(header: Header(alg: "RS256", typ: "JWT", kid: privateKeyID), claims: claims)
            {
                try key.signature(for: $0, padding: .insecurePKCS1v1_5).rawRepresentation
            }
        } catch .encoding {
            throw Failure(message: "cannot encode the assertion of \(self)")
        } catch {
            throw Failure(message: "cannot sign the assertion of \(self)")
        }
    }

    /// The JOSE header of an assertion.
    struct Header: Codable {
        var alg: String
        var typ: String
        var kid: String?
    }

    /// The claims Google's token endpoint expects.
    struct Claims: Codable {
        var iss: String
        var scope: String
        var aud: String
        var iat: Int
        var exp: Int
    }
}
