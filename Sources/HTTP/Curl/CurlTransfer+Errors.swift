import CCurl

extension CurlTransfer {
    /// Classifies a failed transfer. The message names the method, libcurl's text and, for an oversized
    /// body, the limit.
    func error(for code: CURLcode) -> HTTPError {
        let method = request.method
        if bodyTooLarge || code == CURLE_FILESIZE_EXCEEDED {
            return HTTPError(
                code: .responseTooLarge, url: request.url,
                message: "\(method): response body exceeds the limit of \(request.maxResponseBytes) bytes "
                    + "(maxResponseBytes); transfer aborted",
                curlCode: Int(code.rawValue))
        }
        if code == CURLE_OUT_OF_MEMORY {
            // What libcurl answers for a response header line over its 100 KB limit, far more often than a
            // real shortage of memory.
            return HTTPError(
                code: .protocolError, url: request.url,
                message: "\(method): the response headers are too large (libcurl takes a header of at most 100 KB; "
                    + "\(curlMessage(for: code)))",
                curlCode: Int(code.rawValue))
        }
        return HTTPError(
            code: Self.classify(code), url: request.url, message: "\(method): \(curlMessage(for: code))",
            curlCode: Int(code.rawValue))
    }

    /// The ``HTTPError/Code`` of a `CURLcode`.
    static func classify(_ code: CURLcode) -> HTTPError.Code {
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return .timeout
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT:
            return .connectionFailed
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE, CURLE_HTTP2_STREAM:
            return .connectionReset
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
            CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE, CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_ENGINE_NOTFOUND,
            CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_USE_SSL_FAILED:
            return .tls
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            return .invalidURL
        case CURLE_FILE_COULDNT_READ_FILE:
            return .fileNotFound
        case CURLE_WEIRD_SERVER_REPLY, CURLE_HTTP2, CURLE_HTTP3, CURLE_BAD_CONTENT_ENCODING,
            CURLE_TOO_MANY_REDIRECTS:
            return .protocolError
        case CURLE_ABORTED_BY_CALLBACK:
            return .cancelled
        default:
            return .other
        }
    }
}
