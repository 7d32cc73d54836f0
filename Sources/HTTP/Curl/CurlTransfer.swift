import CCurl
import Foundation

/// The result a waiting caller receives.
typealias TransferResult = Result<HTTPResponse, HTTPError>

/// One request on its way through a ``CurlWorker``: the request, the caller's continuation, and what the
/// C callbacks collect while libcurl runs it.
///
/// `@unchecked Sendable`: `cancelRequested` is guarded by the owning `CurlWorker.lock`. Everything else is
/// handed to the worker's curl thread under that lock in `CurlWorker.submit` and from then on is touched
/// only on that thread (including from libcurl's callbacks, which run inside `curl_multi_perform`).
final class CurlTransfer: @unchecked Sendable {
    let request: HTTPRequest
    let configuration: CurlTransport.Configuration

    /// Set when the caller's task is cancelled. Guarded by `CurlWorker.lock`.
    var cancelRequested = false

    /// The caller waiting for the result; resumed exactly once, by `complete(_:)`.
    var continuation: UnsafeContinuation<TransferResult, Never>?
    /// The easy handle while the transfer is in the multi handle.
    var easy: UnsafeMutableRawPointer?
    /// The request header list; libcurl reads it until the transfer ends.
    var headerList: UnsafeMutablePointer<curl_slist>?
    /// libcurl's `CURLOPT_ERRORBUFFER`: the detailed message of a failure.
    let errorBuffer: UnsafeMutablePointer<CChar>
    /// The decoded body received so far.
    var body = Data()
    /// The header fields of the latest response received (an interim `1xx` one is replaced).
    var headers: [HTTPHeader] = []
    /// Set by the write callback when the body passed `maxResponseBytes` and the transfer was aborted.
    var bodyTooLarge = false

    init(request: HTTPRequest, configuration: CurlTransport.Configuration) {
        self.request = request
        self.configuration = configuration
        let size = Int(ccurl_error_size())
        errorBuffer = .allocate(capacity: size)
        errorBuffer.initialize(repeating: 0, count: size)
    }

    deinit {
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    /// Resumes the caller with `result`; later calls do nothing.
    func complete(_ result: TransferResult) {
        continuation?.resume(returning: result)
        continuation = nil
    }

    /// Appends a chunk of the decoded body, or refuses it (returning a short count, which makes libcurl abort
    /// with `CURLE_WRITE_ERROR`) once the body would exceed `maxResponseBytes`.
    func receiveBody(_ chunk: UnsafeRawBufferPointer) -> Int {
        guard body.count + chunk.count <= request.maxResponseBytes else {
            bodyTooLarge = true
            return 0
        }
        body.append(contentsOf: chunk)
        return chunk.count
    }

    /// Takes one raw header line (`HTTP/2 200`, `name: value`, or the empty line ending the block). Parsed
    /// as bytes: it runs for every header of every response.
    func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Int {
        let line = bytes.bindMemory(to: UInt8.self)
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A }
        func text(_ from: Int, _ to: Int) -> String {
            var start = from
            var end = to
            while start < end, isSpace(line[start]) { start += 1 }
            while end > start, isSpace(line[end - 1]) { end -= 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: line[start..<end]), as: UTF8.self)
        }
        guard let first = line.first else { return bytes.count }
        if line.count >= 5, line[0] == UInt8(ascii: "H"), line[1] == UInt8(ascii: "T"), line[2] == UInt8(ascii: "T"),
            line[3] == UInt8(ascii: "P"), line[4] == UInt8(ascii: "/")
        {
            // A new response starts (after a 1xx one): keep only the final response's fields.
            headers.removeAll(keepingCapacity: true)
        } else if first == 0x20 || first == 0x09 {
            // An obsolete folded continuation line.
            if !headers.isEmpty { headers[headers.count - 1].value += " " + text(0, line.count) }
        } else if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            headers.append(HTTPHeader(name: text(0, colon), value: text(colon + 1, line.count)))
        }
        return bytes.count
    }

    /// The response, or the error, once libcurl reports the transfer done with `code`.
    func result(for code: CURLcode) -> TransferResult {
        guard code == CURLE_OK, let easy else {
            return .failure(error(for: code))
        }
        var status = 0
        _ = ccurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        var version = 0
        _ = ccurl_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        let httpVersion = HTTPVersion(curlVersion: version)
        if status == 0 && httpVersion == .unknown {
            status = 200  // file://: libcurl reports no status for a successful read.
        }
        return .success(HTTPResponse(status: status, headers: headers, body: body, httpVersion: httpVersion))
    }

    /// libcurl's detailed message for the last failure, or its generic text for `code`.
    func curlMessage(for code: CURLcode) -> String {
        let generic = String(cString: curl_easy_strerror(code))
        let detail = String(cString: errorBuffer)
        let text = detail.isEmpty ? generic : "\(generic): \(detail)"
        return "\(text) (curl error \(code.rawValue))"
    }
}

extension HTTPVersion {
    /// The version `CURLINFO_HTTP_VERSION` reports.
    init(curlVersion: Int) {
        switch curlVersion {
        case Int(CURL_HTTP_VERSION_1_0): self = .http1_0
        case Int(CURL_HTTP_VERSION_1_1): self = .http1_1
        case Int(CURL_HTTP_VERSION_2_0): self = .http2
        case Int(CURL_HTTP_VERSION_3): self = .http3
        default: self = .unknown
        }
    }
}
