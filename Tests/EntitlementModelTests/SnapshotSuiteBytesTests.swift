import Foundation
import PropertyList
import TestSupport
import Testing
@testable import EntitlementModel

/// ``EntitlementSnapshot/decode(fromSuiteBytes:)`` (the schema read in place from the file the
/// property-list walk accepted) accepts and refuses exactly what the schema read from the
/// decoded tree does — decode every value, then ``EntitlementSnapshot/init(propertyList:)`` —
/// with equal snapshots and equal errors, on valid suite files and on many corrupted ones.
@Suite(.timeLimit(.minutes(1))) struct SnapshotSuiteBytesTests {
    typealias Outcome = Result<EntitlementSnapshot, SnapshotFileDecodingError>

    static func random(_ count: Int, seed: UInt64) -> EntitlementSnapshot {
        var random = SplitMix(seed: seed)
        let base = Date(timeIntervalSinceReferenceDate: 780_000_000.25)
        var statuses: [String: EntitlementStatus] = [:]
        for index in 0..<count {
            let active = random.next(in: 0...2) > 0
            statuses["extra.\(index)"] = EntitlementStatus(
                active: active, state: EntitlementState.allCases[random.next(in: 0...(EntitlementState.allCases.count - 1))],
                periodType: PeriodType.allCases[random.next(in: 0...2)],
                expiresAt: random.next(in: 0...3) == 0 ? nil : base.addingTimeInterval(Double(random.next(in: -100_000...9_000_000)) / 8),
                productId: random.next(in: 0...4) == 0 ? nil : "com.example.product.\(random.next(in: 0...5))",
                willRenew: random.next(in: 0...1) == 0, ownership: random.next(in: 0...1) == 0 ? .purchased : .familyShared)
        }
        return EntitlementSnapshot(
            generation: Int64(random.next(in: 0...1_000_000)), issuedAt: base,
            nextTransition: random.next(in: 0...1) == 0 ? nil : base.addingTimeInterval(3600), entitlements: statuses)
    }

    /// A suite file as `SharedDefaults` writes it, with other writers' keys beside the snapshot.
    static func suiteBytes(_ snapshot: PropertyListValue, others: Bool) throws -> [UInt8] {
        var root: [String: PropertyListValue] = [EntitlementSnapshot.defaultsKey: snapshot]
        if others {
            root["launchMode"] = .string("full")
            root["userName"] = .string("Zoë ✓")  // UTF-16 in someone else's value
            root["counters"] = .array([.integer(-3), .real(2.5), .boolean(true), .data([1, 2, 3]), .date(Date(timeIntervalSinceReferenceDate: 5))])
            root["nested"] = .dictionary(["a": .dictionary(["b": .array([.string("c")])])])
        }
        return try PropertyListCodec.encode(.dictionary(root), format: .binary)
    }

    static func outcome(_ body: () throws(SnapshotFileDecodingError) -> EntitlementSnapshot) -> Outcome {
        do { return .success(try body()) } catch { return .failure(error) }
    }

    static func expectSameOutcome(_ bytes: [UInt8], _ label: @autoclosure () -> String) {
        let fast = outcome { () throws(SnapshotFileDecodingError) in try EntitlementSnapshot.decode(fromSuiteBytes: bytes) }
        let general = outcome { () throws(SnapshotFileDecodingError) in try EntitlementSnapshot.decodeThroughValues(fromSuiteBytes: bytes) }
        switch (fast, general) {
        case (.failure(.snapshot(.invalidField)), .failure(.snapshot(.invalidField))):
            // When several entries are bad, the general path names whichever its dictionary
            // iteration meets first, which differs between two runs of the general path itself.
            break
        default:
            #expect(fast == general, "\(label())")
        }
    }

    @Test(arguments: [0, 1, 2, 10, 17, 100, 130])
    func validFilesDecodeInPlaceToTheSameSnapshot(count: Int) throws {
        for seed in UInt64(1)...6 {
            let snapshot = Self.random(count, seed: seed &* 31 &+ UInt64(count))
            for others in [false, true] {
                let bytes = try Self.suiteBytes(snapshot.propertyList, others: others)
                #expect(try EntitlementSnapshot.decode(fromSuiteBytes: bytes) == snapshot)
                #expect(try EntitlementSnapshot.decodeThroughValues(fromSuiteBytes: bytes) == snapshot)
            }
        }
    }

    /// More distinct product ids than the decoder keeps one shared `String` for (254), each
    /// also used by later entries: shared ones and the ones made per use decode alike.
    @Test func productIdsBeyondTheSharedStringsDecodeAlike() throws {
        let base = Date(timeIntervalSinceReferenceDate: 780_000_000)
        var statuses: [String: EntitlementStatus] = [:]
        for index in 0..<600 {
            statuses["entitlement.\(index)"] = EntitlementStatus(
                active: true, state: .subscribed, expiresAt: base.addingTimeInterval(Double(index)),
                productId: "com.example.a.longer.product.identifier.\(index % 300)", willRenew: index % 2 == 0)
        }
        let snapshot = EntitlementSnapshot(generation: 3, issuedAt: base, nextTransition: nil, entitlements: statuses)
        let bytes = try Self.suiteBytes(snapshot.propertyList, others: true)
        #expect(try EntitlementSnapshot.decode(fromSuiteBytes: bytes) == snapshot)
    }

    /// Product ids used by one, two, three and four entries (a string is kept from its second
    /// use on): every entry still reads its own id.
    @Test func productIdsUsedOnceOrMoreDecodeAlike() throws {
        let base = Date(timeIntervalSinceReferenceDate: 780_000_000)
        var statuses: [String: EntitlementStatus] = [:]
        var index = 0
        for uses in 1...4 {
            for id in 0..<20 {
                for _ in 0..<uses {
                    statuses["entitlement.\(index)"] = EntitlementStatus(
                        active: true, state: .subscribed, productId: "com.example.product.used.\(uses).\(id)", willRenew: true)
                    index += 1
                }
            }
        }
        let snapshot = EntitlementSnapshot(generation: 4, issuedAt: base, nextTransition: nil, entitlements: statuses)
        let bytes = try Self.suiteBytes(snapshot.propertyList, others: false)
        #expect(try EntitlementSnapshot.decode(fromSuiteBytes: bytes) == snapshot)
        Self.expectSameOutcome(bytes, "ids used once or more")
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func corruptedFilesAreRefusedOrAcceptedAlike(seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        let original = try Self.suiteBytes(Self.random(seed % 2 == 0 ? 24 : 3, seed: seed).propertyList, others: seed % 3 == 0)
        for round in 0..<250 {
            var bytes = original
            switch random.next(in: 0...3) {
            case 0: bytes[random.next(in: 0...(bytes.count - 1))] ^= UInt8(1 << random.next(in: 0...7))
            case 1: bytes[random.next(in: 0...(bytes.count - 1))] = UInt8(random.next(in: 0...255))
            case 2: bytes.removeLast(random.next(in: 1...min(64, bytes.count)))
            default:
                for _ in 0..<3 { bytes[random.next(in: 0...(bytes.count - 1))] = UInt8(random.next(in: 0...255)) }
            }
            Self.expectSameOutcome(bytes, "seed \(seed) round \(round)")
        }
    }

    /// Structural corruption that keeps the file parseable more often than random bytes do:
    /// an object-table byte set to a valid object number (a reference now naming another
    /// object: shared values, cycles, a container as a key, the same key twice), or two
    /// offset-table entries swapped (objects trading places). 4,000 files, each judged alike.
    @Test(arguments: [11, 12, 13, 14, 15, 16, 17, 18])
    func rewiredFilesAreRefusedOrAcceptedAlike(seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        let original = try Self.suiteBytes(Self.random(seed % 2 == 0 ? 40 : 4, seed: seed).propertyList, others: seed % 3 == 0)
        let trailer = original.count - 32
        let offsetSize = Int(original[trailer + 6])
        let objectCount = original[(trailer + 8)..<(trailer + 16)].reduce(0) { $0 << 8 | Int($1) }
        let tableStart = original[(trailer + 24)..<(trailer + 32)].reduce(0) { $0 << 8 | Int($1) }
        for round in 0..<500 {
            var bytes = original
            for _ in 0..<random.next(in: 1...2) {
                if random.next(in: 0...2) > 0 {
                    bytes[random.next(in: 8...(tableStart - 1))] = UInt8(truncatingIfNeeded: random.next(in: 0...(objectCount - 1)))
                } else {
                    let first = tableStart + offsetSize * random.next(in: 0...(objectCount - 1))
                    let second = tableStart + offsetSize * random.next(in: 0...(objectCount - 1))
                    for index in 0..<offsetSize { bytes.swapAt(first + index, second + index) }
                }
            }
            Self.expectSameOutcome(bytes, "seed \(seed) round \(round)")
        }
    }

    /// Values that are well formed but wrong for a snapshot, each refused (or accepted) alike.
    @Test func wrongValuesAreJudgedAlike() throws {
        let snapshot = Self.random(3, seed: 9)
        guard case .dictionary(let root) = snapshot.propertyList, case .dictionary(let table)? = root["entitlements"],
            case .dictionary(let entry)? = table["extra.0"]
        else {
            Issue.record("snapshot property list has an unexpected shape")
            return
        }
        func with(_ key: String, _ value: PropertyListValue?) -> PropertyListValue {
            var copy = root
            copy[key] = value
            return .dictionary(copy)
        }
        func withEntry(_ key: String, _ value: PropertyListValue?) -> PropertyListValue {
            var changed = entry
            changed[key] = value
            var changedTable = table
            changedTable["extra.0"] = .dictionary(changed)
            return with("entitlements", .dictionary(changedTable))
        }
        let variants: [PropertyListValue] = [
            with("schemaVersion", .real(1.0)), with("schemaVersion", .integer(2)), with("schemaVersion", nil),
            with("schemaVersion", .string("1")), with("generation", .integer(-1)), with("generation", .real(7.5)),
            with("issuedAt", .real(0)), with("nextTransition", .string("soon")), with("entitlements", .array([])),
            with("unrelated", .dictionary([:])), withEntry("state", .string("subscribed ")), withEntry("state", .string("purchased")),
            withEntry("active", .integer(1)), withEntry("willRenew", nil), withEntry("productId", .string("ünïcode")),
            withEntry("productId", .integer(3)), withEntry("expiresAt", nil), withEntry("expiresAt", .date(Date(timeIntervalSince1970: 0))),
            withEntry("extraField", .boolean(true)), .array([]), .string("x"),
        ]
        for (index, variant) in variants.enumerated() {
            Self.expectSameOutcome(try Self.suiteBytes(variant, others: index % 2 == 0), "variant \(index)")
        }
        // Root not a dictionary, no snapshot key, XML, garbage.
        Self.expectSameOutcome(try PropertyListCodec.encode(.array([snapshot.propertyList])), "array root")
        Self.expectSameOutcome(try PropertyListCodec.encode(.dictionary(["other": .integer(1)])), "no snapshot")
        Self.expectSameOutcome(try PropertyListCodec.encode(.dictionary([EntitlementSnapshot.defaultsKey: snapshot.propertyList]), format: .xml), "XML")
        Self.expectSameOutcome(Array("bplist00".utf8), "magic only")
        Self.expectSameOutcome([], "empty")
    }

    /// Two keys of one dictionary patched to the same text: refused by both paths, in a small
    /// dictionary (an entry) and in a large one (the entitlement table, checked by fingerprint).
    @Test func duplicateKeysAreRefusedAlike() throws {
        let bytes = try Self.suiteBytes(Self.random(30, seed: 4).propertyList, others: false)
        for (from, to) in [("productId", "willRenew"), ("extra.12", "extra.13"), ("extra.1", "extra.2")] {
            var patched = bytes
            let needle = Array(from.utf8)
            guard let start = (0...(patched.count - needle.count)).first(where: { patched[$0..<($0 + needle.count)].elementsEqual(needle) })
            else {
                Issue.record("\(from) not found in the file")
                continue
            }
            patched.replaceSubrange(start..<(start + needle.count), with: Array(to.utf8))
            #expect(throws: SnapshotFileDecodingError.self) { try EntitlementSnapshot.decode(fromSuiteBytes: patched) }
            Self.expectSameOutcome(patched, "\(from) -> \(to)")
        }
    }

    /// The schema keeps a field's value at its name's written-out position: that position must
    /// be the name's place in `allCases` (which both readers enumerate) and fit the slots.
    @Test func fieldPositionsAreTheirPlaceInAllCases() {
        func check<Name: SnapshotFieldName>(_: Name.Type) {
            #expect(Name.allCases.count <= FieldValues<Name, Int>.capacity)
            for (index, name) in Name.allCases.enumerated() { #expect(name.position == index, "\(name)") }
            var values = FieldValues<Name, Int>()
            for name in Name.allCases { values[name.position] = 100 + name.position }
            for name in Name.allCases { #expect(values[name] == 100 + name.position) }
        }
        check(SnapshotSchema.SuiteField.self)
        check(SnapshotSchema.RootField.self)
        check(SnapshotSchema.EntryField.self)
    }

    /// Every slot holds its value, up to the last, also for a value whose size is less than its
    /// stride (the in-place reader's objects): the slots are not counted from the bytes' size.
    @Test func everySlotHoldsAValueShorterThanItsStride() {
        typealias Object = (Int, Bool)
        #expect(MemoryLayout<Object?>.size < MemoryLayout<Object?>.stride)
        let capacity = FieldValues<SnapshotSchema.RootField, Object>.capacity
        var values = FieldValues<SnapshotSchema.RootField, Object>()
        for position in 0..<capacity { values[position] = (100 + position, true) }
        for position in 0..<capacity { #expect(values[position]?.0 == 100 + position) }
    }

    /// The in-place reader finds a name's case by its bytes through a table of slots: exactly
    /// the case whose text the bytes are (as `init(rawValue:)` finds it), for every case of
    /// every name, and none for texts that are not names (empty, a case's text one byte
    /// shorter, longer or changed, another name's text, texts that share a slot).
    @Test func nameTextsFindExactlyTheCaseOfTheirBytes() {
        func check<Name: SnapshotName>(_: Name.Type, others: [String]) {
            let texts = Name.texts
            #expect(texts.cases == Name.allCases)
            func found(_ text: String) -> Name? {
                Array(text.utf8).withUnsafeBufferPointer { texts.position(ofUTF8: $0) }.map { texts.cases[$0] }
            }
            var candidates = others + ["", "a", "ü", String(repeating: "x", count: 40)]
            for name in Name.allCases {
                let text = name.rawValue
                #expect(found(text) == name, "\(text)")
                candidates += [String(text.dropLast()), text + "s", "x" + text, text.uppercased(), String(text.dropFirst())]
                candidates.append(String(text.prefix(text.count / 2)) + "_" + String(text.suffix(text.count - text.count / 2 - 1)))
            }
            for candidate in candidates { #expect(found(candidate) == Name(rawValue: candidate), "\(candidate)") }
        }
        let every = SnapshotSchema.RootField.allCases.map(\.rawValue) + SnapshotSchema.EntryField.allCases.map(\.rawValue)
            + EntitlementState.allCases.map(\.rawValue) + PeriodType.allCases.map(\.rawValue) + Ownership.allCases.map(\.rawValue)
            + [SnapshotSchema.SuiteField.snapshot.rawValue]
        check(SnapshotSchema.SuiteField.self, others: every)
        check(SnapshotSchema.RootField.self, others: every)
        check(SnapshotSchema.EntryField.self, others: every)
        check(EntitlementState.self, others: every)
        check(PeriodType.self, others: every)
        check(Ownership.self, others: every)
    }
}
