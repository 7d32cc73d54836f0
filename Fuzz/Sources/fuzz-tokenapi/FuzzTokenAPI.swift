import Delivery
import Foundation
import FuzzSupport
import LiveRelayCore

@testable import Worker

/// The token API's checks, without a server. The first byte picks what the rest is:
/// 0 a request path, whose steps (as given and percent-decoded) go through every path check;
/// 1 a push-to-start body and 2 an activity-token body (JSON decoded as the routes do, then the token and
/// environment checks); 3 an address body, checked against every provider's address schema.
/// Refusals are `APIError`s; what a check accepts must be what it promises.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTokenAPI(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let rest = Data(bytes: data + 1, count: size - 1)
    switch data[0] % 4 {
    case 0:
        let path = String(decoding: rest, as: UTF8.self)
        for step in path.split(separator: "/", omittingEmptySubsequences: false).map(String.init) {
            checkStep(step)
            if let decoded = step.removingPercentEncoding, decoded != step { checkStep(decoded) }
        }
    case 1:
        guard let body = try? JSONParser.parse(rest) else { return 0 }
        do {
            let decoded = try JSONValueDecoder().decode(TokenBody.self, from: body)
            checkToken(try? Validate.token(decoded.token))
            _ = try? Validate.environment(decoded.environment, default: .production)
        } catch { _ = error.description }
    case 2:
        guard let body = try? JSONParser.parse(rest) else { return 0 }
        do {
            let decoded = try JSONValueDecoder().decode(ActivityTokenBody.self, from: body)
            checkToken(try? Validate.token(decoded.token, field: "token"))
            _ = try? Validate.environment(decoded.environment, default: .production)
        } catch { _ = error.description }
    default:
        guard let body = try? JSONParser.parse(rest) else { return 0 }
        for schema in ProviderCatalog.addressSchemas {
            do {
                let fields = try Validate.fields(of: body, schema.deviceFields, schema)
                invariant(fields.keys.allSatisfy(schema.deviceFields.contains), "a field outside the schema")
                _ = try Validate.deviceAddress(fields, device: "device-1", schema: schema)
            } catch { _ = "\(error)" }
            if let field = schema.activityField {
                do {
                    let fields = try Validate.fields(of: body, [field], schema)
                    if let raw = fields[field] { _ = try schema.activityID(raw) }
                } catch { _ = "\(error)" }
            }
        }
    }
    return 0
}

/// Every path check on one step (percent-decoded by the checks); an accepted id is a non-empty ASCII word of at most 200 characters with no
/// slash that is not made of dots only (a path step a proxy would resolve).
private func checkStep(_ step: String) {
    let ids: [String?] = [
        try? Validate.device(step), try? Validate.attributesType(step), try? Validate.activity(step).rawValue,
        try? Validate.entity(step),
    ]
    // A step is percent-decoded (`a%3Ab` is `a:b`), and otherwise taken as it is.
    let decoded = step.contains("%") ? step.removingPercentEncoding : step
    for id in ids.compactMap({ $0 }) {
        invariant(id == decoded, "a check changed the id beyond percent-decoding")
        invariant(!id.isEmpty && id.utf8.count <= 200, "an accepted id of \(id.utf8.count) bytes")
        invariant(
            id.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") },
            "an accepted id with \(id.debugDescription)")
        invariant(!id.allSatisfy { $0 == "." }, "an accepted id of dots only: \(id)")
    }
    _ = try? Validate.addressProvider(step)
    _ = try? Validate.activityAddressProvider(step)
    checkToken(try? Validate.token(step))
    _ = try? Validate.environment(step, default: .production)
}

/// An accepted token is 64 to 512 lower-case hex digits, an even number.
private func checkToken(_ token: String?) {
    guard let token else { return }
    invariant(
        token.utf8.count % 2 == 0 && (64...512).contains(token.utf8.count)
            && token.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) },
        "an accepted token that is not 64 to 512 lower-case hex digits: \(token.debugDescription.prefix(80))")
}

@_cdecl("fuzz_tokenapi_main")
public func fuzzTokenAPIMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzzTokenAPI)
}
