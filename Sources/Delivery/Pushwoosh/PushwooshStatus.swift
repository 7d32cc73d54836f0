/// How a Pushwoosh answer is classified: the HTTP status first, then `status_code` in the body.
///
/// | answer | action |
/// |---|---|
/// | 200 with `status_code` 200 | delivered |
/// | 429, 5xx | retry (honouring `Retry-After`) |
/// | 401, 403, or `status_code` 401/403 | configuration: the API token or application code is wrong |
/// | 404 | configuration: the URL is wrong for every push |
/// | 400, `status_code` 210 (argument error), anything else | reject this push (a value of this push, such as its relevance, was refused; the provider goes on) |
public enum PushwooshStatus {
    /// What to do about an answer with HTTP `status` and body `statusCode` (`nil` when the body is not
    /// Pushwoosh's JSON).
    public static func action(status: Int, statusCode: Int?) -> DeliveryAction? {
        switch (status, statusCode) {
        case (200, 200?): return nil
        case (429, _), (500...599, _): return .retry
        case (401, _), (403, _), (200, 401?), (200, 403?): return .configuration
        case (404, _): return .configuration
        default: return .rejectPush
        }
    }
}
