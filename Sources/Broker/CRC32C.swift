/// CRC-32C (Castagnoli, the checksum of iSCSI, ext4 metadata and SQLite-style WALs): reflected
/// polynomial 0x82F63B78, initial value and final XOR 0xFFFFFFFF. Table-driven, eight bytes per
/// step over contiguous bytes ("slicing-by-8": a restart checks every byte of the journal, tens
/// of MB for a long history), one byte at a time otherwise.
package enum CRC32C {
    /// `tables[k * 256 + b]`: the CRC of byte `b` followed by `k` zero bytes.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var value = UInt32(index)
            for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0x82F6_3B78 : value >> 1 }
            tables[index] = value
        }
        for slice in 1..<8 {
            for index in 0..<256 {
                let previous = tables[(slice - 1) * 256 + index]
                tables[slice * 256 + index] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// The checksum of `bytes`, continuing from `running` (the value a previous call returned).
    package static func checksum(_ bytes: some Sequence<UInt8>, continuing running: UInt32 = 0) -> UInt32 {
        if let crc = bytes.withContiguousStorageIfAvailable({ checksum(contiguous: $0, continuing: running) }) { return crc }
        var crc = ~running
        tables.withUnsafeBufferPointer { table in
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        return ~crc
    }

    private static func checksum(contiguous bytes: UnsafeBufferPointer<UInt8>, continuing running: UInt32) -> UInt32 {
        var crc = ~running
        tables.withUnsafeBufferPointer { table in
            var position = 0
            let count = bytes.count
            while count - position >= 8 {
                let low = crc ^ (UInt32(bytes[position]) | UInt32(bytes[position + 1]) << 8 | UInt32(bytes[position + 2]) << 16 | UInt32(bytes[position + 3]) << 24)
                let high = UInt32(bytes[position + 4]) | UInt32(bytes[position + 5]) << 8 | UInt32(bytes[position + 6]) << 16 | UInt32(bytes[position + 7]) << 24
                crc = table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                    ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ table[1 * 256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
                position += 8
            }
            while position < count {
                crc = table[Int((crc ^ UInt32(bytes[position])) & 0xFF)] ^ (crc >> 8)
                position += 1
            }
        }
        return ~crc
    }
}
