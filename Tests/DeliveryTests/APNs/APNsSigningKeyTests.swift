import Crypto
import Delivery
import Foundation
import LiveRelayCore
import Testing

@Suite struct APNsSigningKeyTests {
    static func decode(_ part: Substring) throws -> Data {
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        return try #require(Data(base64Encoded: text))
    }

    @Test func aTokenIsAnES256JWTThatVerifiesWithThePublicKey() throws {
        let key = APNsSigningKey(key: P256.Signing.PrivateKey(), keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
        let token = try key.token(issuedAt: 1_783_101_600)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        #expect(!token.contains("=") && !token.contains("+") && !token.contains("/"), "base64url without padding")
        #expect(String(decoding: try Self.decode(parts[0]), as: UTF8.self) == #"{"alg":"ES256","kid":"ABC123DEFG"}"#)
        // iat is a JSON number, not a string.
        #expect(String(decoding: try Self.decode(parts[1]), as: UTF8.self) == #"{"iat":1783101600,"iss":"DEF123GHIJ"}"#)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try Self.decode(parts[2]))
        #expect(key.publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)))
        let other = P256.Signing.PrivateKey().publicKey
        #expect(!other.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)))
    }

    @Test func aP8FileIsReadAndABrokenOneIsRefusedWithoutShowingIt() throws {
        let pem = P256.Signing.PrivateKey().pemRepresentation
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"), "PKCS#8, as Apple's .p8 files")
        let key = try APNsSigningKey(pem: Secret(pem), keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
        #expect(key.description == "APNs key ABC123DEFG of team DEF123GHIJ")
        let broken = "-----BEGIN PRIVATE KEY-----\nTOPSECRETBYTES\n-----END PRIVATE KEY-----"
        do {
            _ = try APNsSigningKey(pem: Secret(broken), keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
            Issue.record("a broken key was accepted")
        } catch {
            #expect(!error.description.contains("TOPSECRET"))
            #expect(error.description.contains("ABC123DEFG"))
        }
    }
}
