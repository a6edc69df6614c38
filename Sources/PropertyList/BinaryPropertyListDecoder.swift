#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation  // toolchains without FoundationEssentials
#endif

/// Builds the ``PropertyListValue`` tree of a binary property list from what the validating walk
/// (``BinaryPropertyListWalk``) accepted; it decides nothing itself.
///
/// Each object is built once and cached by its index, so a string that the writer uniqued
/// (every dictionary key of a snapshot entry, say) becomes one Swift `String` shared by every
/// dictionary that uses it, and the work is linear in the file's size.
struct BinaryPropertyListDecoder {
    private let file: AcceptedBinaryPropertyList
    private var built: [PropertyListValue?]

    /// Decodes `bytes`, which must start with `bplist00`.
    ///
    /// - Throws: ``PropertyListError`` as ``BinaryPropertyListWalk`` refuses; never traps on any input.
    static func decode(_ bytes: [UInt8]) throws(PropertyListError) -> PropertyListValue {
        try AcceptedBinaryPropertyList.withAccepted(bytes) { file in file.value(file.top) }
    }

    init(file: AcceptedBinaryPropertyList) {
        self.file = file
        built = Array(repeating: nil, count: file.objectCount)
    }

    /// The value of `object`, built from its children's.
    mutating func value(_ object: AcceptedBinaryPropertyList.Object) -> PropertyListValue {
        if let known = built[object.index] { return known }
        let value: PropertyListValue
        let marker = file.bytes[file.offset(of: object)]
        switch marker >> 4 {
        case 0x0: value = .boolean(marker == 0x09)
        case 0x1: value = .integer(file.integer(object) ?? 0)
        case 0x2: value = .real(file.real(object) ?? 0)
        case 0x3: value = .date(file.date(object) ?? Date(timeIntervalSinceReferenceDate: 0))
        case 0x4: value = .data(file.data(object).map { Array($0) } ?? [])
        case 0x5, 0x6: value = .string(file.string(object) ?? "")
        case 0xA:
            let (count, start) = file.array(object) ?? (0, 0)
            var elements: [PropertyListValue] = []
            elements.reserveCapacity(count)
            for position in 0..<count {
                elements.append(self.value(file.reference(at: start &+ position &* file.objectRefSize)))
            }
            value = .array(elements)
        default:  // 0xD: the walk accepted no other kind
            guard let dictionary = file.dictionary(object) else { return .dictionary([:]) }
            // `init(minimumCapacity:)` is inlined and specialized; `reserveCapacity` is a generic call.
            var entries = [String: PropertyListValue](minimumCapacity: dictionary.count)
            for position in 0..<dictionary.count {
                let key = file.string(file.key(position, of: dictionary)) ?? ""  // keys are strings: checked
                entries[key] = self.value(file.value(position, of: dictionary))
            }
            value = .dictionary(entries)
        }
        built[object.index] = value
        return value
    }
}
