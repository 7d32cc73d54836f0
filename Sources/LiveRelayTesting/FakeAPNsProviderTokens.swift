import Crypto
import Foundation

/// The fake APNs' check of provider tokens (JWT), written from Apple's rules rather than from LiveRelay's
/// code: ES256 over `header.claims`, `kid` and `iss` as configured, a numeric `iat` no older than an hour,
/// and a new token accepted at most once per 20 minutes (by `iat`).
struct FakeAPNsProviderTokens {
    let keyID: String
    let teamID: String
    let publicKey: P256.Signing.PublicKey
    /// The token in use and its `iat`.
    private(set) var current: (token: String, issuedAt: Int)?
    /// Every distinct token accepted, with its `iat`, in order.
    private(set) var accepted: [(token: String, issuedAt: Int)] = []

    init(keyID: String, teamID: String, publicKey: P256.Signing.PublicKey) {
        self.keyID = keyID
        self.teamID = teamID
        self.publicKey = publicKey
    }

    /// `nil` when the `authorization` header carries an acceptable token, else the 403/429 answer.
    mutating func check(_ authorization: String?, now: Int) -> (status: Int, reason: String, detail: String)? {
        guard let authorization, !authorization.isEmpty else {
            return (403, "MissingProviderToken", "no authorization header")
        }
        let words = authorization.split(separator: " ", maxSplits: 1)
        guard words.count == 2, words[0].lowercased() == "bearer" else {
            return (403, "InvalidProviderToken", "authorization is not \"bearer <token>\"")
        }
        let token = String(words[1])
        if let current, current.token == token {
            return now - current.issuedAt > 3600 ? (403, "ExpiredProviderToken", "iat is over an hour old") : nil
        }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let headerData = Self.base64URLDecode(parts[0]),
            let claimsData = Self.base64URLDecode(parts[1]), let signatureData = Self.base64URLDecode(parts[2]),
            let header = try? JSONDecoder().decode(Header.self, from: headerData)
        else {
            return (403, "InvalidProviderToken", "not a JWT of three base64url parts with a JSON header")
        }
        guard header.alg == "ES256" else { return (403, "InvalidProviderToken", "alg is not ES256") }
        guard header.kid == keyID else { return (403, "InvalidProviderToken", "kid is not \(keyID)") }
        // iat must be a numeric date: a JSON integer, not a string.
        guard let claims = try? JSONDecoder().decode(Claims.self, from: claimsData) else {
            return (403, "InvalidProviderToken", "the claims are not {\"iss\": string, \"iat\": integer}")
        }
        guard claims.iss == teamID else { return (403, "InvalidProviderToken", "iss is not \(teamID)") }
        let issuedAt = claims.iat
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureData),
            publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8))
        else {
            return (403, "InvalidProviderToken", "the signature does not verify with the team's key")
        }
        if issuedAt > now + 300 { return (403, "InvalidProviderToken", "iat is in the future") }
        if now - issuedAt > 3600 { return (403, "ExpiredProviderToken", "iat is over an hour old") }
        if let current, issuedAt - current.issuedAt < 1200 {
            return (429, "TooManyProviderTokenUpdates", "a new token less than 20 minutes after the last one")
        }
        current = (token, issuedAt)
        accepted.append((token, issuedAt))
        return nil
    }

    private struct Header: Decodable {
        var alg: String
        var kid: String
    }

    private struct Claims: Decodable {
        var iss: String
        var iat: Int
    }

    static func base64URLDecode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !text.contains("="), !text.contains("+"), !text.contains("/") else { return nil }
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
