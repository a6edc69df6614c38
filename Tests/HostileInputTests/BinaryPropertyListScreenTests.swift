import EntitlementModel
import Foundation
import PropertyList
import Testing

/// Binary property lists that crashed Foundation's parser (found by the snapshot fuzz target)
/// are refused before Foundation sees them; ordinary ones still decode.
@Suite("Binary property-list screen")
struct BinaryPropertyListScreenTests {
    /// bplist00 with `objects` at offsets 8, 8+len(o0), …; one-byte offsets and references.
    static func bplist(_ objects: [[UInt8]], top: UInt8 = 0) -> [UInt8] {
        var bytes = Array("bplist00".utf8), offsets: [UInt8] = []
        for object in objects {
            offsets.append(UInt8(bytes.count))
            bytes += object
        }
        let table = UInt64(bytes.count)
        bytes += offsets
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]
        for value in [UInt64(objects.count), UInt64(top), table] { bytes += withUnsafeBytes(of: value.bigEndian, Array.init) }
        return bytes
    }

    @Test("The fuzzer's crash inputs are refused with a reason", arguments: [
        "fuzz-binary-set-object-crashed-foundation.plist", "fuzz-bplist0z-version-set-object-crashed-foundation.plist",
    ])
    func fuzzCrashInput(name: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Corpus.path("shared-files", name))))
        #expect(throws: PropertyListError.malformed(reason: "binary property list holds a set, not a property-list type")) {
            try PropertyListCodec.decode(bytes)
        }
    }

    @Test("A minimal set and a UID are refused", arguments: [
        ([[0xC1, 0x01], [0x09]], "set"),
        ([[0xA1, 0x01], [0x80, 0x05]], "UID"),
    ] as [([[UInt8]], String)])
    func refusedTypes(objects: [[UInt8]], kind: String) {
        #expect {
            try PropertyListCodec.decode(Self.bplist(objects))
        } throws: { error in
            "\(error)".contains(kind)
        }
    }

    @Test("Trailers that do not fit are refused, not scanned out of bounds", arguments: [
        Array("bplist00".utf8) + [0x09] + [UInt8](repeating: 0, count: 6) + [9, 9] + [UInt8](repeating: 0xFF, count: 24),
        Array("bplist00".utf8) + [0x09, 0x08] + [UInt8](repeating: 0, count: 6) + [1, 1] + [0, 0, 0, 0, 0, 0, 0, 5] + [UInt8](repeating: 0, count: 8) + [0, 0, 0, 0, 0, 0, 0, 9],
    ])
    func badTrailers(bytes: [UInt8]) {
        #expect(throws: PropertyListError.self) { try PropertyListCodec.decode(bytes) }
    }

    @Test("Hand-made and Foundation-made binary lists still decode")
    func ordinaryLists() throws {
        #expect(try PropertyListCodec.decode(Self.bplist([[0xA1, 0x01], [0x09]])) == .array([.boolean(true)]))
        let snapshot = EntitlementSnapshot(generation: 3, issuedAt: Date(timeIntervalSince1970: 1_800_000_000), nextTransition: nil, entitlements: [:])
        let encoded = try PropertyListCodec.encode(.dictionary([EntitlementSnapshot.defaultsKey: snapshot.propertyList, "other": .array([.string("x"), .real(1.5), .data([1, 2])])]))
        let decoded = try PropertyListCodec.decode(encoded)
        #expect(try EntitlementSnapshot(propertyList: decoded.dictionaryValue?[EntitlementSnapshot.defaultsKey] ?? .boolean(false)) == snapshot)
    }
}
