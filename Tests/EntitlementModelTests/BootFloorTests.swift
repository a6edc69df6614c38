import Foundation
import PropertyList
import Testing
@testable import Entitlements

/// The floor a snapshot puts under a reader's clock: `issuedAt` plus the boot time elapsed since
/// issue on the same boot, `issuedAt` alone otherwise; and the snapshot fields that carry it.
@Suite struct BootFloorTests {
    static let issuedAt = Date(timeIntervalSince1970: 1_800_000_000)
    static let issued = BootInstant(bootID: "edd13141-5ce6-464c-88c4-bad0766df477", nanosecondsSinceBoot: 5_000_000_000)!

    static func snapshot(issuedIn: BootInstant?) -> EntitlementSnapshot {
        EntitlementSnapshot(
            generation: 4, issuedAt: issuedAt, nextTransition: issuedAt.addingTimeInterval(60),
            entitlements: [
                "plus": EntitlementStatus(
                    active: true, state: .subscribed, periodType: .normal, expiresAt: issuedAt.addingTimeInterval(60),
                    productId: "com.example.plus", willRenew: false)
            ], issuedIn: issuedIn)
    }

    @Test("Same boot: issue time plus the boot time elapsed, whatever the wall clock says")
    func sameBoot() {
        let later = BootInstant(bootID: Self.issued.bootID, nanosecondsSinceBoot: Self.issued.nanosecondsSinceBoot + 90_500_000_000)
        let snapshot = Self.snapshot(issuedIn: Self.issued)
        let hourBack = Self.issuedAt.addingTimeInterval(-3600)
        #expect(snapshot.effectiveNow(wallClock: hourBack, boot: later) == Self.issuedAt.addingTimeInterval(90.5))
        // The subscription ended 60 s after issue: 90.5 s of boot time later it is over.
        #expect(!snapshot.status(of: "plus").isActive(at: snapshot.effectiveNow(wallClock: hourBack, boot: later)))
        // A wall clock ahead of the floor is used as it is.
        #expect(snapshot.effectiveNow(wallClock: Self.issuedAt.addingTimeInterval(500), boot: later) == Self.issuedAt.addingTimeInterval(500))
    }

    @Test("Another boot, no reading, or a boot clock behind the issue: the issue time alone")
    func fallBack() {
        let hourBack = Self.issuedAt.addingTimeInterval(-3600)
        let otherBoot = BootInstant(bootID: "another-boot", nanosecondsSinceBoot: 999_000_000_000)
        let behind = BootInstant(bootID: Self.issued.bootID, nanosecondsSinceBoot: 1)
        #expect(Self.snapshot(issuedIn: Self.issued).effectiveNow(wallClock: hourBack, boot: otherBoot) == Self.issuedAt)
        #expect(Self.snapshot(issuedIn: Self.issued).effectiveNow(wallClock: hourBack, boot: nil) == Self.issuedAt)
        #expect(Self.snapshot(issuedIn: Self.issued).effectiveNow(wallClock: hourBack, boot: behind) == Self.issuedAt)
        #expect(Self.snapshot(issuedIn: nil).effectiveNow(wallClock: hourBack, boot: Self.issued) == Self.issuedAt)
        #expect(Self.snapshot(issuedIn: Self.issued).effectiveNow(wallClock: hourBack) == Self.issuedAt)
    }

    @Test("Boot ids and times outside the rule are not readings")
    func validation() {
        #expect(BootInstant(bootID: "", nanosecondsSinceBoot: 0) == nil)
        #expect(BootInstant(bootID: "a b", nanosecondsSinceBoot: 0) == nil)
        #expect(BootInstant(bootID: "é", nanosecondsSinceBoot: 0) == nil)
        #expect(BootInstant(bootID: String(repeating: "a", count: 65), nanosecondsSinceBoot: 0) == nil)
        #expect(BootInstant(bootID: "a", nanosecondsSinceBoot: -1) == nil)
        #expect(BootInstant(bootID: String(repeating: "a", count: 64), nanosecondsSinceBoot: 0) != nil)
    }

    @Test("The boot reading survives the property list, and a snapshot written without it still reads")
    func propertyList() throws {
        let stamped = Self.snapshot(issuedIn: Self.issued)
        guard case .dictionary(let root) = stamped.propertyList else {
            Issue.record("not a dictionary")
            return
        }
        #expect(root["bootId"] == .string(Self.issued.bootID))
        #expect(root["bootTimeNanoseconds"] == .integer(Self.issued.nanosecondsSinceBoot))
        for snapshot in [stamped, Self.snapshot(issuedIn: nil)] {
            let bytes = try PropertyListCodec.encode(.dictionary([EntitlementSnapshot.defaultsKey: snapshot.propertyList]), format: .binary)
            #expect(try EntitlementSnapshot.decode(fromSuiteBytes: bytes) == snapshot)
        }
        // The JSON names both, null when absent.
        guard case .object(let json) = stamped.json, case .object(let old) = Self.snapshot(issuedIn: nil).json else {
            Issue.record("not an object")
            return
        }
        #expect(json["bootId"] == .string(Self.issued.bootID))
        #expect(json["bootTimeNanoseconds"] == .int(Self.issued.nanosecondsSinceBoot))
        #expect(old["bootId"] == .null && old["bootTimeNanoseconds"] == .null)
    }

    @Test("Half a boot reading, or a wrong one, is refused naming its field")
    func wrongReadingsRefused() throws {
        guard case .dictionary(let root) = Self.snapshot(issuedIn: Self.issued).propertyList else {
            Issue.record("not a dictionary")
            return
        }
        func with(_ changes: [String: PropertyListValue?]) throws -> [UInt8] {
            var copy = root
            for (key, value) in changes { copy[key] = value }
            return try PropertyListCodec.encode(.dictionary([EntitlementSnapshot.defaultsKey: .dictionary(copy)]), format: .binary)
        }
        let variants: [[String: PropertyListValue?]] = [
            ["bootId": nil], ["bootTimeNanoseconds": nil], ["bootId": .string("")], ["bootId": .string("two words")],
            ["bootId": .integer(7)], ["bootTimeNanoseconds": .integer(-1)], ["bootTimeNanoseconds": .real(5)],
            ["bootTimeNanoseconds": .string("5")], ["bootId": .string(String(repeating: "f", count: 65))],
        ]
        for (index, variant) in variants.enumerated() {
            let bytes = try with(variant)
            guard case .snapshot(.invalidField(let path, _))? = SnapshotSuiteBytesTests.refusal(bytes) else {
                Issue.record("variant \(index) not refused by a field")
                continue
            }
            #expect(path == "bootId" || path == "bootTimeNanoseconds", "variant \(index): \(path)")
        }
    }
}
