/// Binary payloads (a checkpoint's ``JournalRecord/Kind/isBinary`` records) in a journal whose
/// records never hold a newline: a payload byte 0x0A is written as 0xFE 0x01 and 0xFE as 0xFE 0x02,
/// so the framing, the damage scan and the resynchronisation after damage stay the same for
/// every kind. 0xFE never occurs in UTF-8 and rarely in the rest, so most payloads are stored
/// as they are.
package enum JournalBinary {
    static let escape: UInt8 = 0xFE

    /// Appends `bytes`, escaped, to `out`.
    package static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        for byte in bytes {
            switch byte {
            case 0x0A: out += [escape, 0x01]
            case escape: out += [escape, 0x02]
            default: out.append(byte)
            }
        }
    }

    /// Calls `body` with the bytes `payload` escapes (copied into `scratch` only when it holds an
    /// escape). Returns `nil`, without calling `body`, when an escape is not followed by 0x01 or 0x02.
    package static func withUnescaped<R>(
        _ payload: ArraySlice<UInt8>, scratch: inout [UInt8], _ body: (UnsafeBufferPointer<UInt8>) -> R
    ) -> R? {
        payload.withUnsafeBufferPointer { escaped -> R? in
            guard let first = escaped.firstIndex(of: escape) else { return body(escaped) }
            scratch.removeAll(keepingCapacity: true)
            scratch.append(contentsOf: UnsafeBufferPointer(rebasing: escaped[..<first]))
            var position = first
            while position < escaped.count {
                let byte = escaped[position]
                position += 1
                guard byte == escape else {
                    scratch.append(byte)
                    continue
                }
                guard position < escaped.count else { return nil }
                switch escaped[position] {
                case 0x01: scratch.append(0x0A)
                case 0x02: scratch.append(escape)
                default: return nil
                }
                position += 1
            }
            return scratch.withUnsafeBufferPointer(body)
        }
    }
}
