import Crypto
import Foundation
import NIOCore
public import NIOSSL
import SwiftASN1
import Synchronization
import X509

/// A throwaway certificate authority and one server certificate it signed, made at run time (P-256).
///
/// The server certificate's subjectAltName lists `IP:127.0.0.1`, `DNS:localhost` and any extra DNS names
/// (`api.push.apple.com`, to stand in for a real host). The CA certificate is written to a temporary PEM file,
/// ``caFile``, for a client's CA bundle option; the file is removed when the authority is released, or when
/// the process exits (a `static let` authority is never released).
public final class TestCertificateAuthority: Sendable {
    /// The CA certificate, PEM-encoded.
    public let caCertificatePEM: String
    /// A temporary file holding ``caCertificatePEM``, to pass as the client's CA bundle.
    public let caFile: String
    /// The server certificate, PEM-encoded.
    public let leafCertificatePEM: String
    /// The server certificate, for NIOSSL.
    public let leafCertificate: NIOSSLCertificate
    /// The server certificate's private key, for NIOSSL.
    public let leafPrivateKey: NIOSSLPrivateKey
    /// The DNS names the server certificate is valid for (`localhost` first).
    public let dnsNames: [String]

    /// Generates the CA and the server certificate, and writes the CA file.
    public init(extraDNSNames: [String] = []) throws {
        let now = Date()
        let notBefore = now.addingTimeInterval(-3600)
        let notAfter = now.addingTimeInterval(30 * 24 * 3600)

        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName {
            OrganizationName("LiveRelay tests")
            CommonName("LiveRelay Test CA")
        }
        let caKeyID = SubjectKeyIdentifier(hash: Certificate.PublicKey(caKey.publicKey))
        let caCertificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(caKey.publicKey),
            notValidBefore: notBefore,
            notValidAfter: notAfter,
            issuer: caName,
            subject: caName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                caKeyID
            },
            issuerPrivateKey: Certificate.PrivateKey(caKey)
        )

        let dnsNames = ["localhost"] + extraDNSNames
        let leafKey = P256.Signing.PrivateKey()
        let leafName = try DistinguishedName {
            OrganizationName("LiveRelay tests")
            CommonName("localhost")
        }
        let names: [GeneralName] =
            [.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))] + dnsNames.map { .dnsName($0) }
        let serverAuth = try ExtendedKeyUsage([.serverAuth])
        let leafCertificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(leafKey.publicKey),
            notValidBefore: notBefore,
            notValidAfter: notAfter,
            issuer: caName,
            subject: leafName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                serverAuth
                SubjectAlternativeNames(names)
                SubjectKeyIdentifier(hash: Certificate.PublicKey(leafKey.publicKey))
                AuthorityKeyIdentifier(keyIdentifier: caKeyID.keyIdentifier)
            },
            issuerPrivateKey: Certificate.PrivateKey(caKey)
        )

        caCertificatePEM = try caCertificate.serializeAsPEM().pemString
        leafCertificatePEM = try leafCertificate.serializeAsPEM().pemString
        self.leafCertificate = try NIOSSLCertificate(bytes: Array(leafCertificatePEM.utf8), format: .pem)
        self.leafPrivateKey = try NIOSSLPrivateKey(bytes: Array(leafKey.pemRepresentation.utf8), format: .pem)
        self.dnsNames = dnsNames

        let file = FileManager.default.temporaryDirectory
            .appendingPathComponent("liverelay-test-ca-\(UUID().uuidString).pem")
        _ = caFilesRemovedAtExit
        liveCAFiles.withLock { _ = $0.insert(file.path) }
        try caCertificatePEM.write(to: file, atomically: true, encoding: .utf8)
        caFile = file.path
    }

    deinit {
        liveCAFiles.withLock { _ = $0.remove(caFile) }
        try? FileManager.default.removeItem(atPath: caFile)
    }

    /// A server TLS configuration presenting the server certificate and offering `applicationProtocols`
    /// with ALPN (for example `["h2", "http/1.1"]`).
    public func serverTLSConfiguration(applicationProtocols: [String]) -> TLSConfiguration {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(leafCertificate)],
            privateKey: .privateKey(leafPrivateKey)
        )
        configuration.applicationProtocols = applicationProtocols
        // Do not hold a closing connection open for long waiting for the client's close_notify.
        configuration.shutdownTimeout = .milliseconds(500)
        return configuration
    }
}

/// The CA files of the authorities alive now.
private let liveCAFiles = Mutex<Set<String>>([])

/// Registers, once, the removal at exit of the CA files whose authorities were never released.
private let caFilesRemovedAtExit: Void = {
    atexit {
        for file in liveCAFiles.withLock({ $0 }) { unlink(file) }
    }
}()
