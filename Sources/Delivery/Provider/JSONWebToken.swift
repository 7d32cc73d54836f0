import Foundation
import LiveRelayCore

/// A signed JSON Web Token in compact form (RFC 7515): `base64url(header).base64url(claims).base64url(signature)`.
/// APNs provider tokens (ES256) and Google service-account assertions (RS256) are both made here; the key
/// stays with its owner, which passes the signing as a closure.
enum JSONWebToken {
    /// Why no token could be made; says which step failed, never what was signed.
    enum Failure: Error {
        case encoding
        case signing
    }

    /// The token of `header` and `claims` (canonical JSON), signed by `sign` over the signing input.
    static func signed(
        header: some Encodable, claims: some Encodable, by sign: (Data) throws -> Data
    ) throws(Failure) -> String {
        let input: String
        do {
            input = base64URL(try header.canonicalJSON()) + "." + base64URL(try claims.canonicalJSON())
        } catch {
            throw .encoding
        }
        do {
            return input + "." + base64URL(try sign(Data(input.utf8)))
        } catch {
            throw .signing
        }
    }

    /// Base64 with the URL alphabet and no padding.
    static func base64URL(_ data: Data) -> String {
        var text = data.base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }
}
