import Foundation
import PropertyList
import Testing
@testable import Entitlements
@testable import StoreKitFormats

/// The snapshot's companion fields (`companionSyncedAt`, `device`) in every reading and writing,
/// the catalog's `companionOfflineLimit`, and the one staleness rule the watch's readers share.
@Suite struct CompanionSnapshotTests {
    static let issued = Date(timeIntervalSince1970: 1_795_000_000)

    static func snapshot(device: SnapshotDevice = .phone, synced: Date? = nil) -> EntitlementSnapshot {
        var snapshot = EntitlementSnapshot(
            generation: 3, issuedAt: issued, nextTransition: nil,
            entitlements: ["plus": EntitlementStatus(active: true, state: .purchased, productId: "lifetime")])
        snapshot.device = device
        snapshot.companionSyncedAt = synced
        return snapshot
    }

    static func suiteBytes(_ snapshot: PropertyListValue, format: PropertyListCodec.Format) throws -> [UInt8] {
        try PropertyListCodec.encode(.dictionary([EntitlementSnapshot.defaultsKey: snapshot]), format: format)
    }

    @Test("companionSyncedAt and device survive the binary and the XML readings", arguments: [PropertyListCodec.Format.binary, .xml])
    func roundTrip(format: PropertyListCodec.Format) throws {
        for device in SnapshotDevice.allCases {
            for synced in [nil, Self.issued.addingTimeInterval(-90)] {
                let snapshot = Self.snapshot(device: device, synced: synced)
                let bytes = try Self.suiteBytes(snapshot.propertyList, format: format)
                #expect(try EntitlementSnapshot.decode(fromSuiteBytes: bytes) == snapshot)
            }
        }
        // Absent fields: a phone that never synced writes neither.
        guard case .dictionary(let root) = Self.snapshot().propertyList else { Issue.record("not a dictionary"); return }
        #expect(root["companionSyncedAt"] == nil && root["device"] == nil)
    }

    @Test("The JSON form names both fields")
    func json() {
        let synced = Self.issued.addingTimeInterval(-60)
        guard case .object(let members) = Self.snapshot(device: .watch, synced: synced).json,
            case .object(let phone) = Self.snapshot().json
        else { Issue.record("not an object"); return }
        #expect(members["companionSyncedAt"] == .date(synced) && members["device"] == .string("watch"))
        #expect(phone["companionSyncedAt"] == .null && phone["device"] == .string("phone"))
    }

    @Test("A companionSyncedAt that is not a date in range, or a device that is not phone or watch, refuses the snapshot")
    func refusals() throws {
        let cases: [(String, PropertyListValue, String)] = [
            ("companionSyncedAt", .string("yesterday"), "is missing or not a date"),
            ("companionSyncedAt", .date(Date(timeIntervalSince1970: 0)), "outside 2008...2300"),
            ("device", .string("tablet"), "is not phone or watch"),
            ("device", .integer(1), "is not phone or watch"),
        ]
        for (field, value, problem) in cases {
            guard case .dictionary(var root) = Self.snapshot().propertyList else { Issue.record("not a dictionary"); return }
            root[field] = value
            for format in [PropertyListCodec.Format.binary, .xml] {
                let bytes = try Self.suiteBytes(.dictionary(root), format: format)
                do {
                    _ = try EntitlementSnapshot.decode(fromSuiteBytes: bytes)
                    Issue.record("\(field) = \(value) was accepted")
                } catch {
                    #expect("\(error)".contains(field) && "\(error)".contains(problem), "\(error)")
                }
            }
        }
    }

    @Test("The staleness bound: the watch's readers, and any reader of the watch's snapshot, after companionOfflineLimit")
    func staleness() throws {
        let week = Catalog.defaultCompanionOfflineLimit
        #expect(week == ISO8601Duration(days: 7))
        let synced = Self.issued.addingTimeInterval(-86_400)
        let watch = Self.snapshot(device: .watch, synced: synced), phone = Self.snapshot(device: .phone, synced: synced)
        let bound = synced.addingTimeInterval(7 * 86_400)
        #expect(watch.watchTrustedUntil(offlineLimit: week, readerIsWatch: false) == bound)
        #expect(phone.watchTrustedUntil(offlineLimit: week, readerIsWatch: true) == bound)
        #expect(phone.watchTrustedUntil(offlineLimit: week, readerIsWatch: false) == nil)
        #expect(Self.snapshot(device: .watch).watchTrustedUntil(offlineLimit: week, readerIsWatch: true) == nil)
        #expect(watch.isTrusted(at: bound.addingTimeInterval(-1), offlineLimit: week, readerIsWatch: false))
        #expect(!watch.isTrusted(at: bound, offlineLimit: week, readerIsWatch: false))
        #expect(phone.isTrusted(at: bound.addingTimeInterval(86_400 * 30), offlineLimit: week, readerIsWatch: false))
        // A clock set back before the issue is raised to it: the bound still counts.
        let hour = try #require(ISO8601Duration("PT1H"))
        let stale = Self.snapshot(device: .watch, synced: Self.issued.addingTimeInterval(-7200))
        #expect(!stale.isTrusted(at: Self.issued.addingTimeInterval(-86_400), offlineLimit: hour, readerIsWatch: true))
        #expect(!stale.isTrusted(at: Self.issued, offlineLimit: hour, readerIsWatch: false))
        #expect(watch.isTrusted(at: Self.issued, offlineLimit: week, readerIsWatch: false))
    }

    @Test("companionOfflineLimit: P7D by default, any positive ISO 8601 duration, refused otherwise with its key path")
    func catalogKey() throws {
        let base = CatalogTests.catalog
        func load(_ value: String?) throws -> Catalog {
            let text = value.map { base.replacingOccurrences(of: #""environment":"Production","#, with: #""environment":"Production","companionOfflineLimit":\#($0),"#) } ?? base
            return try Catalog(catalogJSON: Array(text.utf8), storeKitJSON: Array(CatalogTests.storeKit.utf8), catalogPath: "Catalog.json")
        }
        #expect(try load(nil).companionOfflineLimit == ISO8601Duration(days: 7))
        #expect(try load(#""PT90M""#).companionOfflineLimit == ISO8601Duration(minutes: 90))
        for bad in [#""7 days""#, #""P0D""#, "7"] {
            do {
                _ = try load(bad)
                Issue.record("\(bad) was accepted")
            } catch {
                #expect("\(error)".contains("companionOfflineLimit"), "\(error)")
                #expect(!"\(error)".contains("\n"), "\(error)")
            }
        }
    }
}
