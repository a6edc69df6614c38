/// CRC-32C (Castagnoli, the checksum of iSCSI, ext4 metadata and SQLite-style WALs): reflected
/// polynomial 0x82F63B78, initial value and final XOR 0xFFFFFFFF. Table-driven, one byte at a
/// time; the journal checks a few hundred bytes per record, so that is fast enough.
package enum CRC32C {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0x82F6_3B78 : value >> 1 }
        return value
    }

    /// The checksum of `bytes`, continuing from `running` (the value a previous call returned).
    package static func checksum(_ bytes: some Sequence<UInt8>, continuing running: UInt32 = 0) -> UInt32 {
        var crc = ~running
        table.withUnsafeBufferPointer { table in
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        return ~crc
    }
}
