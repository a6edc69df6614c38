@testable import Broker
import EntitlementDefaults
import Entitlements
import StoreKitFormats
import Foundation
import Testing

/// ``DaemonCore/noteCompanionSync(at:)``: the daemon publishes its last sync with the companion as
/// the snapshot's `companionSyncedAt` (and its device as `device`), keeps it across restarts, and
/// makes a new generation for a sync only when the published one lags.
@Suite("Companion sync in the daemon core", .timeLimit(.minutes(1)))
struct CompanionSyncTests {
    static func withCore(device: SnapshotDevice, _ body: (ContainerLayout, () throws -> DaemonCore) throws -> Void) throws {
        let root = NSTemporaryDirectory() + "companion-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let layout = ContainerLayout(container: root, group: "group.core")
        var configuration = DaemonConfiguration(layout: layout, catalogPath: DaemonCoreTests.catalog, durable: false, log: { _ in })
        configuration.device = device
        try body(layout) { try DaemonCore(configuration: configuration) }
    }

    static func published(_ layout: ContainerLayout) -> EntitlementSnapshot? {
        SnapshotReader(suiteName: layout.group, container: layout.container).refresh().snapshot
    }

    @Test("A sync is published as companionSyncedAt, absent before the first, and survives a restart")
    func publishesAndKeepsTheSync() throws {
        try Self.withCore(device: .watch) { layout, makeCore in
            let core = try makeCore()
            let start = Date()
            try core.publish(now: start, force: true)
            let first = try #require(Self.published(layout))
            #expect(first.companionSyncedAt == nil && first.device == .watch)
            let synced = start.addingTimeInterval(-5)
            core.noteCompanionSync(at: synced)
            try core.publish(now: start)
            let second = try #require(Self.published(layout))
            #expect(second.generation == first.generation + 1)
            #expect(second.companionSyncedAt == synced)
            // A heartbeat a moment later is recorded, not published (a tenth of P7D is an hour)...
            core.noteCompanionSync(at: synced.addingTimeInterval(2))
            try core.publish(now: start)
            #expect(Self.published(layout)?.generation == second.generation)
            // ...nor is an earlier one, or one no reader accepts.
            core.noteCompanionSync(at: Date(timeIntervalSince1970: 0))
            #expect(core.lastCompanionSync == synced.addingTimeInterval(2))
            // A restart (on the published file and state.json, or on state.json alone) keeps the
            // bound; state.json keeps milliseconds.
            let again = try makeCore()
            try again.publish(now: start, force: true)
            let restarted = try #require(Self.published(layout)?.companionSyncedAt)
            #expect(abs(restarted.timeIntervalSince(synced)) < 0.001, "\(restarted) \(synced)")
            try FileManager.default.removeItem(atPath: layout.container + "/Library/Preferences/\(layout.group).plist")
            let fromState = try makeCore()
            try fromState.publish(now: start, force: true)
            let kept = try #require(Self.published(layout)?.companionSyncedAt)
            #expect(abs(kept.timeIntervalSince(synced)) < 0.001, "\(kept) \(synced)")
        }
    }

    @Test("The published sync lags the last one by at most a tenth of the limit, never past the issue time")
    func republishesWhenTheSyncLags() throws {
        #expect(DaemonCore.companionSyncRepublishInterval(offlineLimit: ISO8601Duration(days: 7)) == 3600)
        #expect(DaemonCore.companionSyncRepublishInterval(offlineLimit: ISO8601Duration(seconds: 30)) == 3)
        #expect(DaemonCore.companionSyncRepublishInterval(offlineLimit: ISO8601Duration(seconds: 2)) == 1)
        try Self.withCore(device: .phone) { layout, makeCore in
            let core = try makeCore()
            let start = Date()
            core.noteCompanionSync(at: start.addingTimeInterval(-7200))
            try core.publish(now: start, force: true)
            let first = try #require(Self.published(layout))
            #expect(first.device == .phone && first.companionSyncedAt == start.addingTimeInterval(-7200))
            core.noteCompanionSync(at: start.addingTimeInterval(-5000))
            try core.publish(now: start)
            #expect(Self.published(layout)?.generation == first.generation)
            core.noteCompanionSync(at: start)
            try core.publish(now: start)
            let later = try #require(Self.published(layout))
            #expect(later.generation == first.generation + 1)
            #expect(later.companionSyncedAt == start)
            // Syncs ahead of the daemon's time (a wall clock running ahead, which the daemon does
            // not believe) make no new generation, however many...
            for hours in 1...3 {
                core.noteCompanionSync(at: start.addingTimeInterval(86_400 + Double(hours) * 3600))
                try core.publish(now: start.addingTimeInterval(Double(hours) * 3600))
            }
            #expect(Self.published(layout)?.generation == later.generation)
            // ...and one published for another reason says the issue time, not the sync's.
            try core.publish(now: start, force: true)
            let ahead = try #require(Self.published(layout))
            #expect(ahead.companionSyncedAt == ahead.issuedAt && ahead.issuedAt < start.addingTimeInterval(3600))
        }
    }
}
