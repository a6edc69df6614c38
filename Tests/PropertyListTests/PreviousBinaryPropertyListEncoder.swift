import Foundation
@testable import PropertyList

/// The binary encoder as it was before it was rewritten for speed (dictionary-based uniquing,
/// one enum per object, byte-by-byte appends), kept verbatim as the reference the current
/// encoder must match byte for byte. One change: strings are shared by their UTF-8 bytes. The
/// previous encoder looked them up by `String` (canonical equivalence) and remembered only the
/// latest of equivalent strings, so in `[A, B, A]` with `A` and `B` canonically equivalent but
/// different it wrote `A` twice; now `A` is written once, as CoreFoundation (literal equality)
/// does. Decoded values are the same either way.
struct PreviousBinaryPropertyListEncoder {
    private typealias Format = BinaryPropertyListFormat

    /// One entry of the object table, containers holding the indexes of their children.
    private enum Object {
        case scalar(PropertyListValue)
        case array([Int])
        case dictionary(keys: [Int], values: [Int])
    }

    private var objects: [Object] = []
    private var stringObjects: [[UInt8]: Int] = [:]
    private var integerObjects: [Int64: Int] = [:]
    private var booleanObjects: [Bool: Int] = [:]
    private var output: [UInt8] = []

    /// Encodes `value`.
    ///
    /// - Throws: ``PropertyListError/encodingFailed(reason:)`` for a date that is not finite
    ///   (no reader can turn it back into a date) or containers nested deeper than
    ///   ``BinaryPropertyListFormat/maximumDepth`` (our decoder would refuse the file).
    static func encode(_ value: PropertyListValue) throws(PropertyListError) -> [UInt8] {
        var encoder = PreviousBinaryPropertyListEncoder()
        _ = try encoder.flatten(value, depth: 0)
        return encoder.write()
    }

    // MARK: Flattening

    /// Adds `value` and everything under it to the object table; returns its index.
    private mutating func flatten(_ value: PropertyListValue, depth: Int) throws(PropertyListError) -> Int {
        switch value {
        case .string(let string):
            if let index = stringObjects[Array(string.utf8)] { return index }
            stringObjects[Array(string.utf8)] = objects.count
        case .integer(let integer):
            if let index = integerObjects[integer] { return index }
            integerObjects[integer] = objects.count
        case .boolean(let boolean):
            if let index = booleanObjects[boolean] { return index }
            booleanObjects[boolean] = objects.count
        case .date(let date):
            guard date.timeIntervalSinceReferenceDate.isFinite else {
                throw .encodingFailed(reason: "a date is not finite (\(date.timeIntervalSinceReferenceDate))")
            }
        case .real, .data:
            break
        case .array(let elements):
            guard depth < Format.maximumDepth else { throw tooDeep() }
            let index = reserveContainer()
            var references: [Int] = []
            references.reserveCapacity(elements.count)
            for element in elements { references.append(try flatten(element, depth: depth + 1)) }
            objects[index] = .array(references)
            return index
        case .dictionary(let entries):
            guard depth < Format.maximumDepth else { throw tooDeep() }
            let index = reserveContainer()
            let sorted = entries.sorted { $0.key < $1.key }
            var keys: [Int] = []
            keys.reserveCapacity(sorted.count)
            for (key, _) in sorted { keys.append(try flatten(.string(key), depth: depth + 1)) }
            var values: [Int] = []
            values.reserveCapacity(sorted.count)
            for (_, element) in sorted { values.append(try flatten(element, depth: depth + 1)) }
            objects[index] = .dictionary(keys: keys, values: values)
            return index
        }
        objects.append(.scalar(value))
        return objects.count - 1
    }

    private mutating func reserveContainer() -> Int {
        objects.append(.array([]))
        return objects.count - 1
    }

    private func tooDeep() -> PropertyListError {
        .encodingFailed(reason: "containers nest deeper than \(Format.maximumDepth) levels")
    }

    // MARK: Writing

    private mutating func write() -> [UInt8] {
        let referenceSize = Format.byteWidth(for: UInt64(objects.count - 1))
        output.reserveCapacity(Format.headerSize + objects.count * 12 + Format.trailerSize)
        output.append(contentsOf: Format.magic)
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        for object in objects {
            offsets.append(output.count)
            switch object {
            case .scalar(let value): writeScalar(value)
            case .array(let references):
                writeMarker(kind: Format.arrayKind, count: references.count)
                for reference in references { writeBigEndian(UInt64(reference), width: referenceSize) }
            case .dictionary(let keys, let values):
                writeMarker(kind: Format.dictionaryKind, count: keys.count)
                for reference in keys { writeBigEndian(UInt64(reference), width: referenceSize) }
                for reference in values { writeBigEndian(UInt64(reference), width: referenceSize) }
            }
        }
        let offsetTableOffset = output.count
        let offsetSize = Format.byteWidth(for: UInt64(offsetTableOffset))
        for offset in offsets { writeBigEndian(UInt64(offset), width: offsetSize) }
        output.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)])
        writeBigEndian(UInt64(objects.count), width: 8)
        writeBigEndian(0, width: 8)  // the top object is always the first
        writeBigEndian(UInt64(offsetTableOffset), width: 8)
        return output
    }

    private mutating func writeScalar(_ value: PropertyListValue) {
        switch value {
        case .boolean(let boolean):
            output.append(boolean ? Format.trueMarker : Format.falseMarker)
        case .integer(let integer):
            writeInteger(integer)
        case .real(let real):
            output.append(Format.realKind << 4 | 3)
            writeBigEndian(real.bitPattern, width: 8)
        case .date(let date):
            output.append(Format.dateMarker)
            writeBigEndian(date.timeIntervalSinceReferenceDate.bitPattern, width: 8)
        case .data(let bytes):
            writeMarker(kind: Format.dataKind, count: bytes.count)
            output.append(contentsOf: bytes)
        case .string(let string):
            if string.utf8.allSatisfy({ $0 < 0x80 }) {
                writeMarker(kind: Format.asciiStringKind, count: string.utf8.count)
                output.append(contentsOf: string.utf8)
            } else {
                writeMarker(kind: Format.utf16StringKind, count: string.utf16.count)
                for unit in string.utf16 { writeBigEndian(UInt64(unit), width: 2) }
            }
        case .array, .dictionary:
            break  // flattened into `.array` / `.dictionary` objects, never stored as scalars
        }
    }

    /// Non-negative integers in the fewest bytes (read back as unsigned), negative in 8.
    private mutating func writeInteger(_ integer: Int64) {
        let width = integer < 0 ? 8 : Format.byteWidth(for: UInt64(integer))
        output.append(Format.integerKind << 4 | UInt8(width.trailingZeroBitCount))
        writeBigEndian(UInt64(bitPattern: integer), width: width)
    }

    /// A marker whose low nibble is `count`, or 0xF followed by `count` as an integer object.
    private mutating func writeMarker(kind: UInt8, count: Int) {
        if count < Int(Format.lengthFollows) {
            output.append(kind << 4 | UInt8(count))
        } else {
            output.append(kind << 4 | Format.lengthFollows)
            writeInteger(Int64(count))
        }
    }

    private mutating func writeBigEndian(_ value: UInt64, width: Int) {
        for shift in stride(from: (width - 1) * 8, through: 0, by: -8) {
            output.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}
