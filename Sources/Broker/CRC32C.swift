/// CRC-32C (Castagnoli, the checksum of iSCSI, ext4 metadata and SQLite-style WALs): reflected
/// polynomial 0x82F63B78, initial value and final XOR 0xFFFFFFFF. Table-driven, eight bytes at a
/// time (slicing-by-8): a journal record of a signed transaction is about 5 KB, and one byte at
/// a time cost the daemon about 6 µs of each event.
package enum CRC32C {
    /// Eight tables of 256 entries: entry b of table k is the CRC register after byte b followed
    /// by k zero bytes, so eight bytes are folded in with eight lookups.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var value = UInt32(index)
            for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0x82F6_3B78 : value >> 1 }
            tables[index] = value
        }
        for table in 1..<8 {
            for index in 0..<256 {
                let previous = tables[(table - 1) * 256 + index]
                tables[table * 256 + index] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// The checksum of `bytes`, continuing from `running` (the value a previous call returned).
    package static func checksum(_ bytes: some Sequence<UInt8>, continuing running: UInt32 = 0) -> UInt32 {
        if let crc = bytes.withContiguousStorageIfAvailable({ checksum(UnsafeRawBufferPointer($0), continuing: running) }) { return crc }
        return Array(bytes).withUnsafeBytes { checksum($0, continuing: running) }
    }

    private static func checksum(_ bytes: UnsafeRawBufferPointer, continuing running: UInt32) -> UInt32 {
        var crc = ~running
        tables.withUnsafeBufferPointer { tables in
            var offset = 0
            while offset + 8 <= bytes.count {
                let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) ^ UInt64(crc)
                func lookup(_ table: Int, _ shift: UInt64) -> UInt32 { tables[table * 256 + Int((word >> shift) & 0xFF)] }
                crc = lookup(7, 0) ^ lookup(6, 8) ^ lookup(5, 16) ^ lookup(4, 24) ^ lookup(3, 32) ^ lookup(2, 40) ^ lookup(1, 48) ^ lookup(0, 56)
                offset += 8
            }
            while offset < bytes.count {
                crc = tables[Int((crc ^ UInt32(bytes[offset])) & 0xFF)] ^ (crc >> 8)
                offset += 1
            }
        }
        return ~crc
    }
}
