import Foundation
@testable import PropertyList

/// Foundation's `PropertyListSerialization`, bridged to ``PropertyListValue``: the reference the
/// binary and XML codecs are tested against (the library itself no longer uses Foundation).
///
/// The Linux bridging quirks are handled here: booleans come back as `Bool` (never as the integers
/// 0/1), whole-number reals stay `.real`, and integers outside `Int64` are refused rather than
/// wrapped.
enum FoundationPropertyList {
    /// Decodes binary or XML bytes with Foundation; the OpenStep text format is refused.
    static func decode(_ bytes: [UInt8]) throws(PropertyListError) -> PropertyListValue {
        guard !bytes.isEmpty else { throw .malformed(reason: "empty input") }
        let object: Any
        var format = PropertyListSerialization.PropertyListFormat.openStep
        do {
            object = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: &format)
        } catch {
            throw .malformed(reason: Self.reason(error))
        }
        guard format == .binary || format == .xml else {
            throw .malformed(reason: "neither a binary (bplist00) nor an XML property list")
        }
        return try value(from: object, path: "")
    }

    /// Encodes `value` with Foundation in `format`.
    static func encode(_ value: PropertyListValue, format: PropertyListCodec.Format) throws(PropertyListError) -> [UInt8] {
        let serializationFormat: PropertyListSerialization.PropertyListFormat = format == .binary ? .binary : .xml
        do {
            let data = try PropertyListSerialization.data(fromPropertyList: object(from: value), format: serializationFormat, options: 0)
            return [UInt8](data)
        } catch {
            throw .encodingFailed(reason: Self.reason(error))
        }
    }

    /// Foundation's message for `error` on one line: its debug description when it has one.
    private static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        let text = nsError.userInfo[NSDebugDescriptionErrorKey] as? String ?? nsError.localizedDescription
        return text.flattenedToOneLine
    }

    private static func object(from value: PropertyListValue) -> Any {
        switch value {
        case .string(let v): v
        case .integer(let v): NSNumber(value: v)
        case .real(let v): NSNumber(value: v)
        case .boolean(let v): v
        case .date(let v): v
        case .data(let v): Data(v)
        case .array(let v): v.map(object(from:))
        case .dictionary(let v): Dictionary(uniqueKeysWithValues: v.map { ($0.key, object(from: $0.value)) })
        }
    }

    private static func value(from object: Any, path: String) throws(PropertyListError) -> PropertyListValue {
        // `Bool` first: on Linux an NSNumber 0/1 would also cast to Bool.
        if type(of: object) == Bool.self, let bool = object as? Bool { return .boolean(bool) }
        if let number = object as? NSNumber { return try value(from: number, path: path) }
        if let string = object as? String { return .string(string) }
        if let date = object as? Date { return .date(date) }
        if let data = object as? Data { return .data([UInt8](data)) }
        if let array = object as? [Any] {
            var values: [PropertyListValue] = []
            values.reserveCapacity(array.count)
            for (index, element) in array.enumerated() {
                values.append(try value(from: element, path: "\(path)[\(index)]"))
            }
            return .array(values)
        }
        if let dictionary = object as? [AnyHashable: Any] {
            var values: [(String, PropertyListValue)] = []
            values.reserveCapacity(dictionary.count)
            for (key, element) in dictionary {
                guard let key = key.base as? String else {
                    throw .unsupportedValue(path: path, type: "dictionary key \(type(of: key.base))")
                }
                values.append((key, try value(from: element, path: path.isEmpty ? key : "\(path).\(key)")))
            }
            return .dictionary(PropertyListDictionary(uniqueKeysWithValues: values))
        }
        throw .unsupportedValue(path: path, type: String(describing: type(of: object)))
    }

    private static func value(from number: NSNumber, path: String) throws(PropertyListError) -> PropertyListValue {
        switch String(cString: number.objCType) {
        case "c", "B": return .boolean(number.boolValue)
        case "f", "d": return .real(number.doubleValue)
        case "Q", "L", "I", "S", "C":
            let unsigned = number.uint64Value
            guard unsigned <= UInt64(Int64.max) else { throw .unsupportedValue(path: path, type: "integer \(unsigned) above Int64.max") }
            return .integer(Int64(unsigned))
        default: return .integer(number.int64Value)
        }
    }
}
