import Testing
@testable import PropertyList

/// The word-at-a-time byte helpers against byte-by-byte answers, for every length up to 40
/// and a difference (or a high byte) at every position: the last word overlaps the ones before it
/// whenever the length is not a multiple of eight, and no byte may be left out.
@Suite struct RawBytesTests {
    @Test func equalFindsADifferenceAtEveryPosition() {
        for count in 0...40 {
            let first = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            first.withUnsafeBufferPointer { a in
                #expect(RawBytes.equal(a.baseAddress ?? Self.empty, a.baseAddress ?? Self.empty, count: count), "length \(count)")
            }
            for position in 0..<count {
                var second = first
                second[position] ^= 0x01
                first.withUnsafeBufferPointer { a in
                    second.withUnsafeBufferPointer { b in
                        #expect(!RawBytes.equal(a.baseAddress!, b.baseAddress!, count: count), "length \(count), difference at \(position)")
                    }
                }
            }
        }
    }

    @Test func isASCIIFindsAHighByteAtEveryPosition() {
        for count in 0...40 {
            let ascii = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) & 0x7F }
            ascii.withUnsafeBufferPointer { bytes in
                #expect(RawBytes.isASCII(bytes.baseAddress ?? Self.empty, count: count), "length \(count)")
            }
            for position in 0..<count {
                var high = ascii
                high[position] |= 0x80
                high.withUnsafeBufferPointer { bytes in
                    #expect(!RawBytes.isASCII(bytes.baseAddress!, count: count), "length \(count), 0x80 at \(position)")
                }
            }
        }
    }

    /// A pointer for the empty runs (never read: the count is 0).
    private static var empty: UnsafePointer<UInt8> { UnsafePointer(bitPattern: 0x10)! }
}
