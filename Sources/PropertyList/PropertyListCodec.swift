/// Reads and writes property lists as bytes.
///
/// Binary property lists (`bplist00`, what iOS writes for `UserDefaults`) go through a
/// purpose-built codec that reads straight from the bytes: one validating walk decides what is
/// acceptable and builds the value tree as it goes (`BinaryPropertyListDecoder`); the writer is
/// `BinaryPropertyListEncoder`. So does XML (`XMLPropertyListDecoder`,
/// `XMLPropertyListEncoder`). Neither needs libFoundation: Foundation's
/// `PropertyListSerialization` is only the reference the tests compare against. Booleans are
/// never read as the integers 0/1, whole-number reals stay `.real`, and integers outside `Int64`
/// are refused rather than wrapped.
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
    /// keys (refused, not "last wins"). Anything else is read as XML, as strictly: unclosed or
    /// mismatched tags, unknown elements or entities, invalid UTF-8, bad numbers, dates or
    /// base64, duplicate keys, more than one root value and the same limits are refused, with
    /// the line and column in the reason.
    ///
    /// - Throws: ``PropertyListError/malformed(reason:)`` for garbage or truncated input (never a
    ///   crash), ``PropertyListError/unsupportedValue(path:type:)`` for values with no case.
    public static func decode(_ bytes: [UInt8]) throws(PropertyListError) -> PropertyListValue {
        if bytes.starts(with: binaryPrefix) { return try BinaryPropertyListDecoder.decode(bytes) }
        return try XMLPropertyListDecoder.decode(bytes)
    }

    /// Encodes `value`; binary by default, as iOS does. Binary output is canonical: the same
    /// value always gives the same bytes.
    ///
    /// - Throws: ``PropertyListError/encodingFailed(reason:)`` if the value cannot be written
    ///   (for example a non-finite date, a date beyond the years ±999,999 in XML, or containers
    ///   nested deeper than 512 levels).
    public static func encode(_ value: PropertyListValue, format: Format = .binary) throws(PropertyListError) -> [UInt8] {
        switch format {
        case .binary: try BinaryPropertyListEncoder.encode(value)
        case .xml: try XMLPropertyListEncoder.encode(value)
        }
    }

    /// Every binary property list starts with this; any version but `00` is then refused.
    private static let binaryPrefix: [UInt8] = Array("bplist".utf8)
}
