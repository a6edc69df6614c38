import Entitlements
import FoundationEssentials

/// The daemon's time: the last instant it could justify and the boot clock when it did. Pure
/// value; the one rule for which instant the daemon evaluates and publishes at, and for when
/// trusted evidence moves that instant back.
///
/// - Forward, the wall clock is believed only as far as the boot clock corroborates it: on the
///   anchor's boot, no further ahead of the anchor than the boot time elapsed since (plus
///   ``allowedLead`` and ``allowedDriftRate`` of that time); on another boot (nothing to
///   corroborate with) as it reads. A wall clock a reader would refuse (outside 2008...2300) is
///   never believed. So a clock that jumps ahead while the daemon runs, or while it restarts on
///   the same boot, is not published and leaves nothing behind once it is corrected.
/// - Backward, the anchor never moves by the wall clock alone (``floor(boot:)``: a clock set back
///   never extends access). Only a trusted `signedDate` newer than every one accepted before
///   moves it back (``reanchored(signedDate:wallClock:boot:)``), and never earlier than itself.
public struct TimeAnchor: Sendable, Hashable {
    /// An instant the daemon justified (it evaluated and published at it).
    public var instant: Date
    /// The boot clock when it did, or `nil` (none could be read, or a file written without it).
    public var boot: BootInstant?

    /// How far the wall clock may run ahead of the boot clock since the anchor and still be
    /// believed, in seconds: an NTP step of up to this much is taken as it comes.
    public static let allowedLead: TimeInterval = 60
    /// And a further share of the boot time elapsed since the anchor: twice the most NTP slews
    /// a clock (500 ppm), so a daemon that publishes rarely still follows a slewed clock.
    public static let allowedDriftRate = 0.001

    /// An anchor at `instant`, read with the boot clock `boot`.
    public init(instant: Date, boot: BootInstant?) {
        self.instant = instant
        self.boot = boot
    }

    /// Whether a reader accepts `date` as a snapshot's date: finite, within 2008...2300.
    public static func isPublishable(_ date: Date) -> Bool {
        date.timeIntervalSince1970.isFinite && SnapshotSchema.dateRange.contains(date)
    }

    /// The earliest it can be now: ``BootInstant/floor(issuedAt:issued:current:)`` of the anchor.
    public func floor(boot current: BootInstant?) -> Date {
        BootInstant.floor(issuedAt: instant, issued: boot, current: current)
    }

    /// The instant the daemon may evaluate and publish at now: `wallClock` when a reader would
    /// accept it and the boot clock corroborates it (see the type's rule), never earlier than
    /// ``floor(boot:)``; the floor alone otherwise. Without an anchor a reader would accept,
    /// `wallClock` as it reads (the caller still checks ``isPublishable(_:)`` before publishing).
    public func justifiedNow(wallClock: Date, boot current: BootInstant?) -> Date {
        // An anchor a reader would refuse (none yet, or one out of its range) anchors nothing.
        guard Self.isPublishable(instant) else { return wallClock }
        let floor = floor(boot: current)
        guard Self.isPublishable(wallClock), wallClock > floor else { return floor }
        // No reading on this boot to corroborate with: the first reading of a boot is believed.
        guard let elapsed = BootInstant.elapsed(from: boot, to: current) else { return wallClock }
        let lead = Self.allowedLead + elapsed * Self.allowedDriftRate
        return wallClock.timeIntervalSince(floor) <= lead ? wallClock : floor
    }

    /// The anchor moved back by a trusted `signedDate` (of an event just accepted, newer than
    /// every `signedDate` accepted before it), or `nil` when it stays.
    ///
    /// It moves only when the floor ran ahead of both `signedDate` and a wall clock a reader
    /// would accept by more than ``allowedLead`` (less is the drift a clock is allowed anyway):
    /// to the later of the two, read with `current`. So it never moves earlier than the newest
    /// `signedDate` accepted, a replayed old event (not newer) cannot move it, and a withheld
    /// event delivered late extends access by at most the time it was withheld.
    public func reanchored(signedDate: Date, wallClock: Date, boot current: BootInstant?) -> TimeAnchor? {
        guard Self.isPublishable(wallClock), Self.isPublishable(signedDate) else { return nil }
        let shown = max(signedDate, wallClock)
        guard floor(boot: current).timeIntervalSince(shown) > Self.allowedLead else { return nil }
        return TimeAnchor(instant: shown, boot: current)
    }
}
