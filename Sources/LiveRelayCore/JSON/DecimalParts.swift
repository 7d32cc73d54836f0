public import Foundation

/// A decimal's mantissa (when it fits 64 bits), exponent and sign, read from its storage: Foundation keeps
/// them private on Linux, and the public way to them (`description`, `NSDecimalNumber`) is a loop of
/// divisions over eight 16-bit words. swift-foundation's layout is the exponent (one signed byte), the
/// mantissa's length in words (high nibble of the next byte) and its sign (bit 3), two reserved bytes, then
/// the eight words, least significant first. That layout is checked once against decimals of known parts;
/// on a Foundation that lays it out otherwise, every decimal is `nil` here and its text comes from
/// `description`, as before.
public struct DecimalParts: Equatable, Sendable {
    public var mantissa: UInt64
    public var exponent: Int
    public var negative: Bool

    public init(mantissa: UInt64, exponent: Int, negative: Bool) {
        self.mantissa = mantissa
        self.exponent = exponent
        self.negative = negative
    }

    /// The parts of `d`; `nil` for NaN, zero, a mantissa wider than 64 bits, or a layout not the expected.
    public init?(_ d: Decimal) {
        guard Self.layoutHolds, let parts = Self.read(d) else { return nil }
        self = parts
    }

    private static func read(_ d: Decimal) -> DecimalParts? {
        guard MemoryLayout<Decimal>.size == 20, !d.isNaN else { return nil }
        return withUnsafeBytes(of: d) { b -> DecimalParts? in
            let length = Int(b[1] >> 4)
            guard length > 0, length <= 4 else { return nil }
            var mantissa: UInt64 = 0
            for word in 0..<length {
                mantissa |= (UInt64(b[4 + 2 * word]) | UInt64(b[5 + 2 * word]) << 8) << (16 * word)
            }
            return DecimalParts(mantissa: mantissa, exponent: Int(Int8(bitPattern: b[0])), negative: b[1] & 0x08 != 0)
        }
    }

    /// Whether this Foundation stores decimals as ``read(_:)`` expects: decimals whose parts are known,
    /// made by arithmetic (not parsed), read back as those parts.
    static let layoutHolds: Bool = {
        let known: [(Decimal, DecimalParts)] = [
            (
                Decimal(sign: .minus, exponent: -2, significand: 12345),
                DecimalParts(mantissa: 12345, exponent: -2, negative: true)
            ),
            (
                Decimal(sign: .plus, exponent: 3, significand: 1),
                DecimalParts(mantissa: 1, exponent: 3, negative: false)
            ),
            (Decimal(UInt64.max), DecimalParts(mantissa: .max, exponent: 0, negative: false)),
            (
                Decimal(sign: .plus, exponent: -7, significand: Decimal(70_000_001)),
                DecimalParts(mantissa: 70_000_001, exponent: -7, negative: false)
            ),
        ]
        return known.allSatisfy { read($0.0) == $0.1 }
    }()
}

extension Decimal {
    /// The decimal's plain text, as `description` (and `NSDecimalNumber`'s `stringValue`) writes it: digits, a
    /// point, no exponent. Without Foundation's loop for a mantissa of 64 bits or fewer (``DecimalParts``).
    public var plainText: String {
        var bytes = JSONBytes()
        bytes.decimal(self)
        return String(decoding: bytes.bytes, as: UTF8.self)
    }
}
