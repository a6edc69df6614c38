/// Reads and writes property lists as bytes.
///
/// Binary property lists (`bplist00`, what iOS writes for `UserDefaults`) go through a
/// purpose-built codec that reads straight from the bytes (see `BinaryPropertyListDecoder` and
/// `BinaryPropertyListEncoder`); XML goes through Foundation's `PropertyListSerialization`,
/// which also stays the reference the binary codec is tested against. Booleans are never read as
/// the integers 0/1, whole-number reals stay `.real`, and integers outside `Int64` are refused
/// rather than wrapped.
public enum PropertyListCodec {
    /// The on-disk format to write.
    public enum Format: Sendable, Hashable {
        /// `bplist00`, what iOS writes for `UserDefaults`.
        case binary
        /// The XML plist (`<?xml …?><plist version="1.0">`), for people and diffs. XML stores
        /// dates as whole seconds: a fraction of a second is lost.
        case xml
    }

    /// Decodes binary (`bplist00`) or XML property-list bytes. The old OpenStep text format is
    /// refused (Foundation would read almost any text, such as a truncated header, as a string).
    ///
    /// Input starting with `bplist` is decoded by the binary codec, which fails closed on
    /// anything malformed: bad trailers, out-of-range offsets and references, reference cycles,
    /// nesting deeper than 512, more than 2^20 values, invalid strings and duplicate dictionary
    /// keys (refused, not "last wins").
    ///
    /// - Throws: ``PropertyListError/malformed(reason:)`` for garbage or truncated input (never a
    ///   crash), ``PropertyListError/unsupportedValue(path:type:)`` for values with no case.
    public static func decode(_ bytes: [UInt8]) throws(PropertyListError) -> PropertyListValue {
        if bytes.starts(with: binaryPrefix) { return try BinaryPropertyListDecoder.decode(bytes) }
        return try FoundationPropertyList.decode(bytes)
    }

    /// Encodes `value`; binary by default, as iOS does. Binary output is canonical: the same
    /// value always gives the same bytes.
    ///
    /// - Throws: ``PropertyListError/encodingFailed(reason:)`` if the value cannot be written
    ///   (for example a non-finite date, or containers nested deeper than 512 levels in binary).
    public static func encode(_ value: PropertyListValue, format: Format = .binary) throws(PropertyListError) -> [UInt8] {
        switch format {
        case .binary: try BinaryPropertyListEncoder.encode(value)
        case .xml: try FoundationPropertyList.encode(value, format: .xml)
        }
    }

    /// Every binary property list starts with this; any version but `00` is then refused.
    private static let binaryPrefix: [UInt8] = Array("bplist".utf8)
}
