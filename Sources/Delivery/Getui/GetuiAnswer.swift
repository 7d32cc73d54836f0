import Foundation

/// Getui's answer to every RestAPI v2 call: `{"code": 0, "msg": "", "data": …}`. `code` says what happened,
/// whatever the HTTP status (200 for 0, 2 and 301; 401 for the 1000x codes; 400 for 20001).
public struct GetuiAnswer: Sendable, Hashable, Decodable {
    /// 0 on success.
    public var code: Int
    /// Words; never logged whole (a 20001 may quote the request).
    public var msg: String?

    /// Creates an answer.
    public init(code: Int, msg: String?) {
        self.code = code
        self.msg = msg
    }

    /// `data` of `POST /auth`: `{"expire_time": "1608172111917", "token": "…"}` (both strings).
    struct Token: Decodable {
        var data: Body

        struct Body: Decodable {
            var token: String
            var expireTime: String

            enum CodingKeys: String, CodingKey {
                case token
                case expireTime = "expire_time"
            }
        }
    }

    /// `data` of a 301: the domains the app id's data centre serves, first the one to use:
    /// `{"hostList": [{"domainList": ["https://…"]}], "domainHash": "…"}`.
    struct Domains: Decodable {
        var data: Body

        struct Body: Decodable {
            var hostList: [Hosts]
            var domainHash: String?
        }

        struct Hosts: Decodable {
            var domainList: [String]
        }

        /// The first domain, without a trailing slash.
        var first: String? {
            guard var domain = data.hostList.lazy.flatMap(\.domainList).first(where: { !$0.isEmpty }) else {
                return nil
            }
            while domain.hasSuffix("/") { domain.removeLast() }
            return domain
        }
    }
}

/// What LiveRelay does about a Getui `code`.
///
/// | code | meaning | action |
/// |---|---|---|
/// | 0 | success | delivered |
/// | 2 | the service is starting | retry with backoff |
/// | 301 | wrong domain for the app id's data centre | switch to the domain in `data`, send again once |
/// | 10001 | the token is wrong or expired | refresh the token and retry once |
/// | 10003, 10005 | per-minute rate of `auth`, or of calls, exceeded | pause the whole provider, retry later |
/// | 20001 `target user is invalid` | the `cid` is wrong or not the app's | drop the address |
/// | anything else | | configuration error: the provider stops |
///
/// An answer that is not Getui's JSON is retried after a 429 or a 5xx and is a configuration error
/// otherwise (a wrong endpoint).
public enum GetuiCode {
    /// The action for a `code`.
    public enum Action: Sendable, Hashable {
        case delivered
        case retry
        case switchDomain
        case refreshToken
        case rateLimited
        case dropTarget
        case configuration
    }

    /// What to do about `answer` (`nil` when the body was not Getui's JSON) with HTTP `status`.
    public static func action(status: Int, answer: GetuiAnswer?) -> Action {
        guard let answer else {
            return status == 429 || (500...599).contains(status) ? .retry : .configuration
        }
        switch answer.code {
        case 0: return .delivered
        case 2: return .retry
        case 301: return .switchDomain
        case 10001: return .refreshToken
        case 10003, 10005: return .rateLimited
        case 20001 where invalidTarget(answer.msg): return .dropTarget
        default: return (500...599).contains(status) ? .retry : .configuration
        }
    }

    /// Whether a 20001's message says the `cid` is invalid (rather than a parameter of the request).
    static func invalidTarget(_ msg: String?) -> Bool {
        msg?.lowercased().contains("target user is invalid") == true
    }
}
