import CCurl
import Foundation

extension CurlTransfer {
    /// Sets every option of `easy` (fresh or just reset) for this transfer. Runs on the curl thread.
    func configure(_ easy: UnsafeMutableRawPointer) throws(HTTPError) {
        let options = EasyOptions(easy: easy, transfer: self)
        let context = Unmanaged.passUnretained(self).toOpaque()

        try options.set(CURLOPT_URL, request.url)
        // Only these schemes, whatever the URL says (no gopher://, no dict://).
        try options.set(CURLOPT_PROTOCOLS_STR, "http,https,file")
        try options.set(CURLOPT_NOSIGNAL, 1)
        try options.set(CURLOPT_PRIVATE, pointer: context)
        try options.set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))

        // WRITEDATA always goes with WRITEFUNCTION: libcurl's default callback would fwrite to it.
        try options.set(
            CURLOPT_WRITEFUNCTION,
            function: { data, size, count, context in
                guard let data, let context else { return 0 }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
            })
        try options.set(CURLOPT_WRITEDATA, pointer: context)
        try options.set(
            CURLOPT_HEADERFUNCTION,
            function: { data, size, count, context in
                guard let data, let context else { return 0 }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                return transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: size * count))
            })
        try options.set(CURLOPT_HEADERDATA, pointer: context)

        try options.set(CURLOPT_TIMEOUT_MS, request.timeout.curlMilliseconds)
        try options.set(CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.curlMilliseconds)
        try options.set(CURLOPT_MAXFILESIZE_LARGE, offset: max(0, request.maxResponseBytes))
        // "" offers every encoding this libcurl decodes (gzip, deflate, br, zstd) and decodes the body.
        try options.set(CURLOPT_ACCEPT_ENCODING, "")
        try options.set(CURLOPT_TCP_KEEPALIVE, 1)
        try options.set(CURLOPT_TCP_NODELAY, configuration.coalesceWrites ? 0 : 1)

        let priorKnowledge = configuration.http2PriorKnowledge && request.url.lowercased().hasPrefix("http://")
        let version = priorKnowledge ? CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE : CURL_HTTP_VERSION_2TLS
        try options.set(CURLOPT_HTTP_VERSION, Int(version))
        if priorKnowledge && CurlGlobal.priorKnowledgeReuseIsBroken {
            // A fresh connection per request: this libcurl cannot send a second request on an h2c connection.
            try options.set(CURLOPT_FRESH_CONNECT, 1)
            try options.set(CURLOPT_FORBID_REUSE, 1)
        }
        // Wait for a connection that may multiplex rather than opening another one.
        try options.set(CURLOPT_PIPEWAIT, 1)

        // Verification is never turned off; a test CA replaces the system bundle only when configured.
        try options.set(CURLOPT_SSL_VERIFYPEER, 1)
        try options.set(CURLOPT_SSL_VERIFYHOST, 2)
        if let caFile = configuration.caFile {
            try options.set(CURLOPT_CAINFO, caFile)
        }
        try options.set(CURLOPT_USERAGENT, configuration.userAgent)

        try configureMethodAndBody(options)
        try configureHeaders(options)
    }

    private func configureMethodAndBody(_ options: EasyOptions) throws(HTTPError) {
        let method = request.method.uppercased()
        var body = request.body
        if body == nil, ["POST", "PUT", "PATCH"].contains(method) {
            body = Data()  // never let libcurl fall back to reading the body from stdin
        }
        if let body {
            try options.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: body.count)
            // COPYPOSTFIELDS copies POSTFIELDSIZE bytes now: the Data need not outlive this call.
            let code = body.withUnsafeBytes { bytes -> CURLcode in
                guard let base = bytes.baseAddress, !bytes.isEmpty else {
                    return ccurl_easy_setopt_string(options.easy, CURLOPT_COPYPOSTFIELDS, "")
                }
                let pointer = UnsafeMutableRawPointer(mutating: base)
                return ccurl_easy_setopt_pointer(options.easy, CURLOPT_COPYPOSTFIELDS, pointer)
            }
            try options.check(code, CURLOPT_COPYPOSTFIELDS)
            if method != "POST" { try options.set(CURLOPT_CUSTOMREQUEST, method) }
        } else if method == "HEAD" {
            try options.set(CURLOPT_NOBODY, 1)
        } else {
            try options.set(CURLOPT_HTTPGET, 1)
            if method != "GET" { try options.set(CURLOPT_CUSTOMREQUEST, method) }
        }
    }

    private func configureHeaders(_ options: EasyOptions) throws(HTTPError) {
        var lines: [String] = request.headers.map { "\($0.name): \($0.value)" }
        for header in request.validators?.requestHeaders ?? [] where !request.headers.contains(named: header.name) {
            lines.append("\(header.name): \(header.value)")
        }
        if request.body != nil || ["POST", "PUT", "PATCH"].contains(request.method.uppercased()) {
            // No `Expect: 100-continue` round trip, and no invented form content type.
            if !request.headers.contains(named: "Expect") { lines.append("Expect:") }
            if !request.headers.contains(named: "Content-Type") { lines.append("Content-Type:") }
        }
        curl_slist_free_all(headerList)
        headerList = nil
        for line in lines {
            guard let appended = curl_slist_append(headerList, line) else {
                throw HTTPError(code: .other, url: request.url, message: "out of memory building request headers")
            }
            headerList = appended
        }
        try options.set(CURLOPT_HTTPHEADER, pointer: UnsafeMutableRawPointer(headerList))
    }
}

/// Typed `curl_easy_setopt` calls that turn a refused option into an ``HTTPError``.
struct EasyOptions {
    let easy: UnsafeMutableRawPointer
    let transfer: CurlTransfer

    func set(_ option: CURLoption, _ value: Int) throws(HTTPError) {
        try check(ccurl_easy_setopt_long(easy, option, value), option)
    }

    func set(_ option: CURLoption, _ value: String) throws(HTTPError) {
        try check(ccurl_easy_setopt_string(easy, option, value), option)
    }

    func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) throws(HTTPError) {
        try check(ccurl_easy_setopt_pointer(easy, option, pointer), option)
    }

    func set(_ option: CURLoption, offset: Int) throws(HTTPError) {
        try check(ccurl_easy_setopt_off_t(easy, option, curl_off_t(offset)), option)
    }

    func set(_ option: CURLoption, function: curl_write_callback) throws(HTTPError) {
        try check(ccurl_easy_setopt_write_function(easy, option, function), option)
    }

    func check(_ code: CURLcode, _ option: CURLoption) throws(HTTPError) {
        guard code != CURLE_OK else { return }
        let text = String(cString: curl_easy_strerror(code))
        throw HTTPError(
            code: code == CURLE_UNSUPPORTED_PROTOCOL ? .invalidURL : .other, url: transfer.request.url,
            message: "\(transfer.request.method): setting curl option \(option.rawValue) failed: \(text)",
            curlCode: Int(code.rawValue))
    }
}
