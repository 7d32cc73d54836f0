/// What a server said identifies the version of a resource, kept to make the next GET conditional.
///
/// A request carrying validators sends `If-None-Match` and `If-Modified-Since`; a server whose resource
/// has not changed answers `304 Not Modified` with no body.
public struct CacheValidators: Sendable, Hashable, Codable {
    /// The `ETag` of the response, quotes and `W/` prefix included, exactly as received.
    public var etag: String?
    /// The `Last-Modified` of the response, exactly as received (an HTTP date).
    public var lastModified: String?

    /// Creates validators; `nil` for both means there is nothing to validate with.
    public init(etag: String? = nil, lastModified: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
    }

    /// The validators of a response's header fields, or `nil` when it has neither `ETag` nor `Last-Modified`.
    public init?(headers: [HTTPHeader]) {
        let etag = headers.first(named: "ETag")
        let lastModified = headers.first(named: "Last-Modified")
        guard etag != nil || lastModified != nil else { return nil }
        self.init(etag: etag, lastModified: lastModified)
    }

    /// The conditional request header fields these validators produce.
    public var requestHeaders: [HTTPHeader] {
        var headers: [HTTPHeader] = []
        if let etag { headers.append(HTTPHeader("If-None-Match", etag)) }
        if let lastModified { headers.append(HTTPHeader("If-Modified-Since", lastModified)) }
        return headers
    }
}
