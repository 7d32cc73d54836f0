import CCurl

/// libcurl's process-wide initialisation, done once before the first handle is made.
///
/// A static `let` is initialised lazily and exactly once (through `swift_once`), the first time a
/// `CurlTransport` is created, so no handle exists before `curl_global_init` has returned. Debian's libcurl
/// (7.88, feature `threadsafe`) makes `curl_global_init` itself thread-safe, so other threads existing by then
/// (the Swift runtime's, NIO's in tests) is harmless. `curl_global_cleanup` is never called: the
/// initialisation lives as long as the process.
enum CurlGlobal {
    /// The `CURLcode` `curl_global_init` returned, as a raw value.
    private static let initCode: UInt32 = curl_global_init(ccurl_global_all()).rawValue

    /// Runs `curl_global_init` on first use; throws if it failed then.
    static func ensureInitialized() throws(HTTPError) {
        let code = initCode
        guard code == CURLE_OK.rawValue else {
            throw HTTPError(
                code: .other, url: "",
                message: "curl_global_init failed: \(String(cString: curl_easy_strerror(CURLcode(code))))",
                curlCode: Int(code))
        }
    }

    /// libcurl's version string, e.g. `libcurl/7.88.1 OpenSSL/3.0.19 zlib/1.2.13 brotli/1.0.9 nghttp2/1.52.0`.
    static var version: String { String(cString: curl_version()) }

    /// libcurl's version as `0xMMmmpp` (`0x075801` for 7.88.1).
    static var versionNumber: UInt32 {
        guard let info = curl_version_info(ccurl_version_now()) else { return 0 }
        return info.pointee.version_num
    }

    /// libcurl before 8.0 fails every request after the first on an HTTP/2 prior-knowledge (h2c) connection
    /// with "Error in the HTTP2 framing layer" (seen with 7.88.1, curl's own command-line tool included).
    static let priorKnowledgeReuseIsBroken = versionNumber < 0x08_00_00

    /// Whether the libcurl in use was built with HTTP/2 (nghttp2).
    static var supportsHTTP2: Bool {
        guard let info = curl_version_info(ccurl_version_now()) else { return false }
        return info.pointee.features & Int32(CURL_VERSION_HTTP2) != 0
    }
}
