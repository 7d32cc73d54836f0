public import Foundation

/// Encodes bytes as a valid gzip stream made of uncompressed ("stored") deflate blocks.
///
/// A loopback server needs `content-encoding: gzip` that real clients decode, not compression, so this
/// avoids a zlib dependency: any gzip decoder accepts stored blocks.
public enum StoredGzip {
    /// The gzip encoding of `data` (RFC 1952 around RFC 1951 stored blocks).
    public static func encode(_ data: Data) -> Data {
        let bytes = [UInt8](data)
        var out: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 255]
        out.reserveCapacity(bytes.count + bytes.count / 65535 * 5 + 32)
        var offset = 0
        repeat {
            let count = min(65535, bytes.count - offset)
            let isFinal = offset + count == bytes.count
            out.append(isFinal ? 1 : 0)  // BFINAL, BTYPE = 00 (stored), padding to the byte boundary
            let length = UInt16(count)
            out += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
            out += bytes[offset..<offset + count]
            offset += count
        } while offset < bytes.count
        out += littleEndian(crc32(bytes))
        out += littleEndian(UInt32(truncatingIfNeeded: bytes.count))
        return Data(out)
    }

    private static func littleEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF), UInt8((value >> 16) & 0xFF), UInt8(value >> 24)]
    }

    private static let crcTable: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        return crc
    }

    /// CRC-32 (IEEE 802.3), as gzip's trailer wants it.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return ~crc
    }
}
