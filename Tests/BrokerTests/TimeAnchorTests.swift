import Foundation
import Testing
@testable import Broker
import Entitlements

/// Which instant the daemon may evaluate and publish at, and when a trusted `signedDate` moves
/// its time back (``TimeAnchor``).
@Suite struct TimeAnchorTests {
    static let anchoredAt = Date(timeIntervalSince1970: 1_800_000_000)
    static let boot = BootInstant(bootID: "edd13141-5ce6-464c-88c4-bad0766df477", nanosecondsSinceBoot: 5_000_000_000)!
    static let anchor = TimeAnchor(instant: anchoredAt, boot: boot)
    static let year: TimeInterval = 365 * 86_400

    static func later(_ seconds: Double, bootID: String = boot.bootID) -> BootInstant {
        BootInstant(bootID: bootID, nanosecondsSinceBoot: boot.nanosecondsSinceBoot + Int64(seconds * 1_000_000_000))!
    }

    @Test("A wall clock the boot clock corroborates is believed; one that ran ahead of it is not")
    func corroboration() {
        let hour = Self.later(3600)
        // Ran with the boot clock, or a little ahead (an NTP step, a slewed clock).
        #expect(Self.anchor.justifiedNow(wallClock: Self.anchoredAt.addingTimeInterval(3600), boot: hour) == Self.anchoredAt.addingTimeInterval(3600))
        #expect(Self.anchor.justifiedNow(wallClock: Self.anchoredAt.addingTimeInterval(3650), boot: hour) == Self.anchoredAt.addingTimeInterval(3650))
        // A year ahead of the boot clock: the floor.
        #expect(Self.anchor.justifiedNow(wallClock: Self.anchoredAt.addingTimeInterval(Self.year), boot: hour) == Self.anchoredAt.addingTimeInterval(3600))
        // Set back: never earlier than the floor.
        #expect(Self.anchor.justifiedNow(wallClock: Self.anchoredAt.addingTimeInterval(-86_400), boot: hour) == Self.anchoredAt.addingTimeInterval(3600))
        // The drift allowed grows with the boot time elapsed: 1000 ppm of ten days is 864 s.
        let tenDays = Self.later(864_000)
        let slewed = Self.anchoredAt.addingTimeInterval(864_000 + 900)
        #expect(Self.anchor.justifiedNow(wallClock: slewed, boot: tenDays) == slewed)
        #expect(Self.anchor.justifiedNow(wallClock: slewed.addingTimeInterval(60), boot: tenDays) == Self.anchoredAt.addingTimeInterval(864_000))
    }

    @Test("Another boot, or no boot reading: the first reading is believed, never below the anchor")
    func otherBoot() {
        let other = Self.later(10, bootID: "another-boot")
        let week = Self.anchoredAt.addingTimeInterval(7 * 86_400)
        #expect(Self.anchor.justifiedNow(wallClock: week, boot: other) == week)
        #expect(Self.anchor.justifiedNow(wallClock: week, boot: nil) == week)
        #expect(TimeAnchor(instant: Self.anchoredAt, boot: nil).justifiedNow(wallClock: week, boot: Self.boot) == week)
        #expect(Self.anchor.justifiedNow(wallClock: Self.anchoredAt.addingTimeInterval(-60), boot: other) == Self.anchoredAt)
    }

    @Test("No instant a reader refuses is justified, and such an anchor anchors nothing")
    func publishable() {
        let year2301 = Date(timeIntervalSince1970: 10_445_328_000)
        #expect(!TimeAnchor.isPublishable(year2301))
        #expect(!TimeAnchor.isPublishable(Date(timeIntervalSince1970: 0)))
        #expect(TimeAnchor.isPublishable(Self.anchoredAt))
        // On another boot too, a wall clock in 2301 is not believed.
        #expect(Self.anchor.justifiedNow(wallClock: year2301, boot: Self.later(1, bootID: "another-boot")) == Self.anchoredAt)
        // An anchor from 2301 (kept before this rule) or none at all: the wall clock as it reads.
        let now = Self.anchoredAt
        #expect(TimeAnchor(instant: year2301, boot: Self.boot).justifiedNow(wallClock: now, boot: Self.later(1)) == now)
        #expect(TimeAnchor(instant: .distantPast, boot: nil).justifiedNow(wallClock: now, boot: Self.boot) == now)
    }

    @Test("A newer signedDate moves a time that ran ahead back, never before itself")
    func reanchor() throws {
        // The anchor ran a year ahead; the wall clock was set right; Apple signs an event now.
        let ahead = TimeAnchor(instant: Self.anchoredAt.addingTimeInterval(Self.year), boot: Self.boot)
        let current = Self.later(60)
        let wall = Self.anchoredAt.addingTimeInterval(60)
        let moved = try #require(ahead.reanchored(signedDate: wall.addingTimeInterval(-2), wallClock: wall, boot: current))
        #expect(moved == TimeAnchor(instant: wall, boot: current))
        #expect(moved.justifiedNow(wallClock: wall, boot: current) == wall)
        // A wall clock set back further than the signedDate: the signedDate bounds the move.
        let setBack = wall.addingTimeInterval(-30 * 86_400)
        #expect(ahead.reanchored(signedDate: wall, wallClock: setBack, boot: current)?.instant == wall)
        // The wall clock agrees with the anchor, or trails it by no more than it may lead: nothing to correct.
        #expect(Self.anchor.reanchored(signedDate: wall.addingTimeInterval(-5), wallClock: wall, boot: current) == nil)
        #expect(Self.anchor.reanchored(signedDate: wall.addingTimeInterval(-30), wallClock: wall.addingTimeInterval(-30), boot: current) == nil)
        // A signedDate past the floor raises the time through the engine instead.
        #expect(ahead.reanchored(signedDate: ahead.instant.addingTimeInterval(3600), wallClock: wall, boot: current) == nil)
        // A wall clock no reader accepts is no evidence.
        #expect(ahead.reanchored(signedDate: wall, wallClock: .distantPast, boot: current) == nil)
    }
}
