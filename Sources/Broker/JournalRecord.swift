import SystemShims

/// One framed journal record, and the framing itself.
///
/// A journal file is the line `entitlement-journal 2` followed by records, each one line:
///
/// ```
/// <kind> <payload length in bytes, decimal> <CRC-32C of kind and payload, 8 hex digits> <payload>\n
/// ```
///
/// `kind` is `e` (an accepted event line, exactly as ingested), `c` (the start of a checkpoint:
/// how many records it holds, see ``JournalCheckpoint``), `f` (a fact a compaction kept, as the
/// JSON line ``EventDecoder`` reads, see ``JournalReplay/checkpoint(of:carrying:)``), `s` (the
/// summary that closes a compaction's facts, see ``JournalSummary``) or `l` (a loss marker
/// written by the repair command, see ``JournalLoss``). Earlier checkpoints' fact records, `t`,
/// `r`, `A` and `G` in words (``JournalFactCodec``) and `N`, `T` and `R` in binary
/// (``JournalBinaryCheckpoint``), are still read, and replaced by the daemon's next start. The length says where the record ends, so a
/// damaged newline is noticed (the byte after the payload is not `\n`) without losing the next
/// record; the checksum catches any changed byte of the payload. Payloads never contain a newline.
///
/// Every journal of version 2 begins with a checkpoint (``JournalCheckpoint``), so a file cut at
/// a record boundary inside it is told from a whole one. Version 1 (`entitlement-journal 1`, no
/// `c` record) is still read, and rewritten as version 2 by the daemon's next start.
package struct JournalRecord: Sendable, Hashable {
    package enum Kind: UInt8, Sendable {
        case event = 0x65  // "e"
        case fact = 0x66  // "f"
        case checkpointStart = 0x63  // "c"
        case loss = 0x6C  // "l"
        case summary = 0x73  // "s"
        case transaction = 0x74  // "t"
        case renewalInfo = 0x72  // "r"
        case checkpointNames = 0x4E  // "N"
        case checkpointTransaction = 0x54  // "T"
        case checkpointRenewalInfo = 0x52  // "R"
        case checkpointAppTransaction = 0x41  // "A"
        case checkpointGrant = 0x47  // "G"
    }

    package var kind: Kind
    /// The payload, a slice of the bytes read (a whole journal's records share one buffer).
    package var payload: ArraySlice<UInt8>
    /// Position in the file: 0 for the first record after the header line.
    package var index: Int
    /// Byte offset of the record's first byte in the file.
    package var offset: Int

    package init(kind: Kind, payload: some Collection<UInt8>, index: Int, offset: Int) {
        self.kind = kind
        self.payload = payload as? ArraySlice<UInt8> ?? ArraySlice(payload)
        self.index = index
        self.offset = offset
    }

    /// The first line of every framed journal written now (version 2).
    package static let header = Array("entitlement-journal 2\n".utf8)
    /// The first line of a framed journal of version 1, whose checkpoints do not say their length.
    package static let headerVersion1 = Array("entitlement-journal 1\n".utf8)

    /// The bytes of one record.
    package static func encode(_ kind: Kind, _ payload: some Collection<UInt8>) -> [UInt8] {
        var bytes: [UInt8] = []
        append(kind, payload, to: &bytes)
        return bytes
    }

    /// Appends the bytes of one record to `bytes`.
    package static func append(_ kind: Kind, _ payload: some Collection<UInt8>, to bytes: inout [UInt8]) {
        let crc = CRC32C.checksum(payload, continuing: CRC32C.checksum(CollectionOfOne(kind.rawValue)))
        bytes.append(kind.rawValue)
        bytes.append(0x20)
        var length = payload.count
        var digits: [UInt8] = []
        repeat {
            digits.append(0x30 + UInt8(length % 10))
            length /= 10
        } while length > 0
        bytes.append(contentsOf: digits.reversed())
        bytes.append(0x20)
        for shift in stride(from: 28, through: 0, by: -4) {
            let nibble = UInt8((crc >> UInt32(shift)) & 0xF)
            bytes.append(nibble < 10 ? 0x30 + nibble : 0x61 + nibble - 10)
        }
        bytes.append(0x20)
        bytes.append(contentsOf: payload)
        bytes.append(0x0A)
    }

    /// What parsing one record at an offset found.
    enum Parsed {
        /// A whole, intact record ending (after its newline) at `end`.
        case record(Kind, Range<Int>, end: Int)
        /// Every byte present is a valid beginning of a record, but the file ends first.
        case incomplete(expectedLength: Int?)
        /// Not a valid record. `end` is where the record would end by its own length, when the
        /// header could be read; `intact` is the payload when its checksum still verifies.
        case damaged(String, end: Int?, intact: [UInt8]?)
    }

    /// Parses the record that starts at `start` in `bytes`.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Parsed {
        let count = bytes.count
        var position = start
        guard let kind = Kind(rawValue: bytes[position]) else {
            return .damaged("record kind is byte 0x\(String(bytes[position], radix: 16)), not one of 'e', 'c', 'f', 's', 'l', 't', 'r', 'N', 'T', 'R', 'A', 'G'", end: nil, intact: nil)
        }
        position += 1
        guard position < count else { return .incomplete(expectedLength: nil) }
        guard bytes[position] == 0x20 else { return .damaged("no space after the record kind", end: nil, intact: nil) }
        position += 1
        var length = 0
        var digits = 0
        while position < count, bytes[position] != 0x20 {
            let byte = bytes[position]
            guard byte >= 0x30, byte <= 0x39, digits < 9 else {
                return .damaged("record length is not a decimal number", end: nil, intact: nil)
            }
            length = length * 10 + Int(byte - 0x30)
            digits += 1
            position += 1
        }
        guard position < count else { return .incomplete(expectedLength: nil) }
        guard digits > 0 else { return .damaged("record length is missing", end: nil, intact: nil) }
        position += 1
        var checksum: UInt32 = 0
        for _ in 0..<8 {
            guard position < count else { return .incomplete(expectedLength: nil) }
            guard let nibble = JournalWords.hexValue(bytes[position]) else {
                return .damaged("record checksum is not 8 hex digits", end: nil, intact: nil)
            }
            checksum = checksum << 4 | UInt32(nibble)
            position += 1
        }
        guard position < count else { return .incomplete(expectedLength: nil) }
        guard bytes[position] == 0x20 else { return .damaged("no space after the record checksum", end: nil, intact: nil) }
        position += 1
        let payload = position..<(position + length)
        let recordEnd = payload.upperBound + 1
        let total = recordEnd - start
        guard payload.upperBound <= count else { return .incomplete(expectedLength: total) }
        let payloadBytes = UnsafeBufferPointer(rebasing: bytes[payload])
        let verifies = CRC32C.checksum(payloadBytes, continuing: CRC32C.checksum(CollectionOfOne(kind.rawValue))) == checksum
        guard payload.upperBound < count else {
            // Only the newline is missing: a write cut off at its last byte.
            return verifies ? .incomplete(expectedLength: total) : .damaged("checksum mismatch", end: recordEnd, intact: nil)
        }
        let terminator = bytes[payload.upperBound]
        guard verifies else {
            return .damaged("checksum mismatch", end: recordEnd, intact: nil)
        }
        guard terminator == 0x0A else {
            return .damaged(
                "the byte after the record is 0x\(String(terminator, radix: 16)), not a newline (two records merged)",
                end: recordEnd, intact: Array(payloadBytes))
        }
        if ByteSearch.firstIndex(of: 0x0A, in: payloadBytes, from: 0) != nil {
            return .damaged("payload holds a newline", end: recordEnd, intact: nil)
        }
        return .record(kind, payload, end: recordEnd)
    }
}
