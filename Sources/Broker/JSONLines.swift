import SystemShims

/// The one way every input of JSON Lines is cut into lines: `entitlementctl ingest` and
/// `evaluate` (a file or standard input) and the daemon's inbox files.
///
/// A line ends at LF or CRLF (files copied from Windows tools arrive with CRLF); the last line
/// needs no terminator; a UTF-8 byte-order mark at the very start of the input is dropped. Blank
/// lines are kept, so a line's index plus one is its line number in the input.
package enum JSONLines {
    /// A line that is not valid UTF-8; `line` is its 1-based number.
    package struct InvalidUTF8: Error, Sendable, Equatable, CustomStringConvertible {
        package var line: Int
        package var description: String { "\(line): line is not valid UTF-8" }
    }

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// The lines of `bytes`, without their terminators.
    ///
    /// Splits on the byte over the raw buffer (not on `Character`s, whose grapheme breaking cost
    /// a tenth of a daemon drain, and which take CRLF for one character that is not LF).
    /// A line that is not valid UTF-8 throws ``InvalidUTF8`` with its number.
    package static func split(_ bytes: [UInt8]) throws(InvalidUTF8) -> [String] {
        var invalidLine: Int?
        let lines = bytes.withUnsafeBufferPointer { buffer in
            var lines: [String] = []
            var start = buffer.starts(with: byteOrderMark) ? byteOrderMark.count : 0
            while start < buffer.count {
                // memchr: the byte search stays fast in debug builds too (a 16 MiB line is refused
                // by its length later, not after seconds of scanning).
                let newline = ByteSearch.firstIndex(of: 0x0A, in: buffer, from: start)
                var end = newline ?? buffer.count
                if newline != nil, end > start, buffer[end - 1] == 0x0D { end -= 1 }
                guard let line = String(validating: UnsafeBufferPointer(rebasing: buffer[start..<end]), as: UTF8.self) else {
                    invalidLine = lines.count + 1
                    return lines
                }
                lines.append(line)
                start = (newline ?? buffer.count) + 1
            }
            return lines
        }
        if let invalidLine { throw InvalidUTF8(line: invalidLine) }
        return lines
    }
}
