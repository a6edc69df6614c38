import Foundation
import PropertyList
import TestSupport
import Testing
@testable import Entitlements

/// ``EntitlementSnapshot/decode(fromSuiteBytes:)``: the snapshot that was written reads back from
/// a suite file with other writers' keys beside it, corrupted files are refused (never a crash),
/// and every value that is wrong for a snapshot is refused with the field it names.
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
        var root: PropertyListDictionary = [EntitlementSnapshot.defaultsKey: snapshot]
        if others {
            root["launchMode"] = .string("full")
            root["userName"] = .string("Zoë ✓")  // UTF-16 in someone else's value
            root["counters"] = .array([.integer(-3), .real(2.5), .boolean(true), .data([1, 2, 3]), .date(Date(timeIntervalSinceReferenceDate: 5))])
            root["nested"] = .dictionary(["a": .dictionary(["b": .array([.string("c")])])])
        }
        return try PropertyListCodec.encode(.dictionary(root), format: .binary)
    }

    /// The outcome of decoding `bytes`: a refusal must be one of the file's or the snapshot's
    /// errors, and an accepted file must hold the snapshot its decoded value holds.
    static func expectJudged(_ bytes: [UInt8], _ label: @autoclosure () -> String) {
        do {
            let snapshot = try EntitlementSnapshot.decode(fromSuiteBytes: bytes)
            let root = try PropertyListCodec.decode(bytes)
            #expect(try EntitlementSnapshot(propertyList: root.dictionaryValue?[EntitlementSnapshot.defaultsKey] ?? root) == snapshot, "\(label())")
        } catch {
            #expect(error is SnapshotFileDecodingError, "\(label()): \(error)")
        }
    }

    /// The error `bytes` are refused with, or `nil` when they are accepted.
    static func refusal(_ bytes: [UInt8]) -> SnapshotFileDecodingError? {
        do throws(SnapshotFileDecodingError) {
            _ = try EntitlementSnapshot.decode(fromSuiteBytes: bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [0, 1, 2, 10, 17, 100, 130])
    func validFilesDecodeToTheSameSnapshot(count: Int) throws {
        for seed in UInt64(1)...6 {
            let snapshot = Self.random(count, seed: seed &* 31 &+ UInt64(count))
            for others in [false, true] {
                let bytes = try Self.suiteBytes(snapshot.propertyList, others: others)
                #expect(try EntitlementSnapshot.decode(fromSuiteBytes: bytes) == snapshot)
            }
        }
    }

    /// Many product ids, each shared by several entries (one string object in the file).
    @Test func sharedProductIdsDecode() throws {
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

    /// Product ids used by one, two, three and four entries: every entry reads its own id.
    @Test func productIdsUsedOnceOrMoreDecode() throws {
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
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func corruptedFilesAreJudged(seed: UInt64) throws {
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
            Self.expectJudged(bytes, "seed \(seed) round \(round)")
        }
    }

    /// Structural corruption that keeps the file parseable more often than random bytes do:
    /// an object-table byte set to a valid object number (a reference now naming another
    /// object: shared values, cycles, a container as a key, the same key twice), or two
    /// offset-table entries swapped (objects trading places). 4,000 files, none a crash.
    @Test(arguments: [11, 12, 13, 14, 15, 16, 17, 18])
    func rewiredFilesAreJudged(seed: UInt64) throws {
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
            Self.expectJudged(bytes, "seed \(seed) round \(round)")
        }
    }

    /// Values that are well formed but wrong for a snapshot, each refused naming its field;
    /// values a snapshot may hold (an integral real version, other keys, optional fields
    /// absent, UTF-16 text) accepted.
    @Test func wrongValuesAreRefusedByTheirField() throws {
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
        let refused: [(PropertyListValue, String)] = [
            (with("schemaVersion", nil), "schemaVersion"), (with("schemaVersion", .string("1")), "schemaVersion"),
            (with("generation", .integer(-1)), "generation"), (with("generation", .real(7.5)), "generation"),
            (with("issuedAt", .real(0)), "issuedAt"), (with("nextTransition", .string("soon")), "nextTransition"),
            (with("entitlements", .array([])), "entitlements"), (withEntry("state", .string("subscribed ")), "entitlements.extra.0.state"),
            (withEntry("state", .string("purchased ")), "entitlements.extra.0.state"), (withEntry("active", .integer(1)), "entitlements.extra.0.active"),
            (withEntry("willRenew", nil), "entitlements.extra.0.willRenew"), (withEntry("productId", .integer(3)), "entitlements.extra.0.productId"),
            (withEntry("expiresAt", .date(Date(timeIntervalSince1970: 0))), "entitlements.extra.0.expiresAt"), (.array([]), ""), (.string("x"), ""),
        ]
        for (index, (variant, path)) in refused.enumerated() {
            let error = Self.refusal(try Self.suiteBytes(variant, others: index % 2 == 0))
            guard case .snapshot(.invalidField(let refusedPath, _))? = error else {
                Issue.record("variant \(index) (\(path)): \(String(describing: error))")
                continue
            }
            #expect(refusedPath == path, "variant \(index)")
        }
        #expect(Self.refusal(try Self.suiteBytes(with("schemaVersion", .integer(2)), others: false)) == .snapshot(.unknownSchemaVersion(2)))
        let accepted = [
            with("schemaVersion", .real(1.0)), with("unrelated", .dictionary([:])), withEntry("productId", .string("ünïcode")),
            withEntry("expiresAt", nil), withEntry("extraField", .boolean(true)),
        ]
        for (index, variant) in accepted.enumerated() {
            #expect(Self.refusal(try Self.suiteBytes(variant, others: index % 2 == 0)) == nil, "accepted variant \(index)")
        }
        // Root not a dictionary, no snapshot key, XML, garbage.
        #expect(Self.refusal(try PropertyListCodec.encode(.array([snapshot.propertyList]))) == .rootNotDictionary(kind: "an array"))
        #expect(Self.refusal(try PropertyListCodec.encode(.dictionary(["other": .integer(1)]))) == .snapshot(.missing))
        let xml = try PropertyListCodec.encode(.dictionary([EntitlementSnapshot.defaultsKey: snapshot.propertyList]), format: .xml)
        #expect(Self.refusal(xml) == nil, "XML")  // accepted (XML keeps its dates to the second)
        for garbage in [Array("bplist00".utf8), []] {
            guard case .undecodable? = Self.refusal(garbage) else {
                Issue.record("\(garbage.count) bytes of garbage not refused as undecodable")
                continue
            }
        }
    }

    /// Two keys of one dictionary patched to the same text: refused, in a small dictionary (an
    /// entry) and in a large one (the entitlement table).
    @Test func duplicateKeysAreRefused() throws {
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
            guard case .undecodable(.malformed(let reason))? = Self.refusal(patched) else {
                Issue.record("\(from) -> \(to) not refused as malformed")
                continue
            }
            #expect(reason.contains("twice"), "\(reason)")
        }
    }

    /// An entry's `products` are written only when they differ from what their absence means
    /// (the deciding product alone while active, none otherwise), and read back either way.
    @Test func productsAreLeftOutOnlyWhenTheyAreTheDefault() throws {
        let cases: [(status: EntitlementStatus, written: Bool)] = [
            (EntitlementStatus(active: true, state: .subscribed, productId: "a"), false),
            (EntitlementStatus(active: true, state: .purchased, productId: nil), false),
            (EntitlementStatus(active: false, state: .expired, productId: "a"), false),
            (EntitlementStatus(active: true, state: .subscribed, productId: "a", products: ["a", "b"]), true),
            (EntitlementStatus(active: true, state: .subscribed, productId: "a", products: ["b"]), true),
            (EntitlementStatus(active: true, state: .subscribed, productId: "a", products: []), true),
            (EntitlementStatus(active: true, state: .purchased, productId: nil, products: ["b"]), true),
            (EntitlementStatus(active: false, state: .expired, productId: "a", products: ["a"]), true),
        ]
        for (status, written) in cases {
            let snapshot = EntitlementSnapshot(generation: 1, issuedAt: Date(timeIntervalSince1970: 1_800_000_000), nextTransition: nil, entitlements: ["plus": status])
            let entry = snapshot.propertyList.dictionaryValue?["entitlements"]?.dictionaryValue?["plus"]?.dictionaryValue
            #expect((entry?["products"] != nil) == written, "\(status.products)")
            #expect(try EntitlementSnapshot.decode(fromSuiteBytes: try Self.suiteBytes(snapshot.propertyList, others: false)) == snapshot)
        }
    }
}
