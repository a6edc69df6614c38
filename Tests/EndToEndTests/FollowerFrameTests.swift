import Foundation
import ServiceRuntime
import TestSupport
import Testing

/// How many frames `widget-renderer --follow` prints, and when: one per change of what it shows,
/// never one because time passed or because the watch armed.
@Suite("Follower frames", .timeLimit(.minutes(5)))
struct FollowerFrameTests {
    /// One frame of `--format json --family systemSmall`: its line's arrival, generation, and first entry.
    struct Frame: CustomStringConvertible {
        var arrived: Date
        var generation: Int64?
        var locked: Bool
        var stale: Bool
        var description: String { "generation \(generation.map(String.init) ?? "none") \(locked ? "locked" : "unlocked")\(stale ? " stale" : "")" }
    }

    static func frames(_ lines: TimestampedLines) -> [Frame] {
        lines.all.compactMap { arrived, line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let first = (object["entries"] as? [[String: Any]])?.first,
                  let locked = first["locked"] as? Bool, let stale = first["stale"] as? Bool
            else { return nil }
            return Frame(arrived: arrived, generation: (object["generation"] as? Int).map(Int64.init), locked: locked, stale: stale)
        }
    }

    static func startFollower(_ fixture: Fixture, format: String = "json") throws -> (ChildProcess, TimestampedLines) {
        let lines = TimestampedLines()
        let follower = try ChildProcess(
            executable: BuiltTools.path("widget-renderer"),
            arguments: fixture.common + ["--follow", "--format", format, "--family", "systemSmall"],
            environment: BuiltTools.environment()
        ) { stream, line in
            if stream == .standardOutput { lines.append(line) }
        }
        return (follower, lines)
    }

    /// Ingests `event` with `--wait` and returns the generation published with it.
    static func ingest(_ fixture: Fixture, _ event: String) async throws -> Int64 {
        let result = try await fixture.run("entitlementctl", ["ingest", "--wait", "-"] + fixture.common, input: event + "\n")
        #expect(result.status == 0, "ingest: \(result.standardError)")
        return fixture.snapshot()?.generation ?? 0
    }

    @Test("The first frame is printed once: the watch arming re-reads but prints nothing new", arguments: ["json", "text"])
    func firstFrameOnce(format: String) async throws {
        try await Fixture.with { fixture in
            let daemon = try await fixture.startDaemon()
            defer { daemon.send(SIGKILL) }  // on a thrown error; after the stop below it is a no-op
            let (follower, lines) = try Self.startFollower(fixture, format: format)
            defer { follower.send(SIGKILL) }
            // A frame's first line: the JSON object, or the text header naming the family.
            let isFrameStart: (String) -> Bool = { format == "json" ? $0.hasPrefix("{") : $0.hasPrefix("systemSmall ") }
            #expect(await ChildProcess.wait(timeout: .seconds(10)) { lines.all.contains { isFrameStart($0.line) } })

            // A purchase is the next change; its frame must directly follow the first one.
            let bought = try await Self.ingest(fixture, Fixture.transaction(
                id: "3001", product: "com.irenews.geko.plus.lifetime", purchased: Date(), expires: nil))
            let marker = format == "json" ? "\"generation\":\(bought)" : "generation \(bought)"
            #expect(await ChildProcess.wait(timeout: .seconds(10)) { lines.all.contains { $0.line.contains(marker) } })
            let starts = lines.all.map(\.line).filter(isFrameStart)
            #expect(starts.count == 2, "frames: \(starts)")
            #expect(starts.last?.contains(marker) == true, "frames: \(starts)")
            #expect(await follower.stop() == 0)
            #expect(await daemon.stop() == 0)
        }
    }

    /// Ingests a subscription `id` ending at `expiry` and waits, until then, for the follower's
    /// unlocked frame of it; returns the generation published and whether that frame came.
    static func subscribe(_ fixture: Fixture, _ lines: TimestampedLines, id: String, until expiry: Date) async throws -> (Int64, Bool) {
        let subscribed = try await Self.ingest(fixture, Fixture.transaction(id: id, purchased: Date(), expires: expiry))
        let unlocked = await ChildProcess.wait(timeout: .seconds(max(1, Int(expiry.timeIntervalSinceNow)))) {
            Self.frames(lines).contains { $0.generation == subscribed && !$0.locked }
        }
        return (subscribed, unlocked)
    }

    @Test("At an expiry the follower prints exactly one new frame: the daemon's locked generation, not stale")
    func oneFrameAtExpiry() async throws {
        try await withRoomForSetUp([6, 20, 60]) { window in try await Fixture.with { try await Self.oneFrameAtExpiry($0, window: window) } }
    }

    /// One attempt with `window` seconds to the expiry; false when the set-up outlasted it.
    static func oneFrameAtExpiry(_ fixture: Fixture, window: TimeInterval) async throws -> Bool {
        let daemon = try await fixture.startDaemon()
        defer { daemon.send(SIGKILL) }
        let (follower, lines) = try Self.startFollower(fixture)
        defer { follower.send(SIGKILL) }
        #expect(await ChildProcess.wait(timeout: .seconds(10)) { !Self.frames(lines).isEmpty })

        let expiry = Date().addingTimeInterval(window)
        let (subscribed, unlockedFrame) = try await Self.subscribe(fixture, lines, id: "3101", until: expiry)
        guard unlockedFrame, Date() < expiry.addingTimeInterval(-1) else { return false }
        // The daemon republishes at the expiry with no event, and the follower shows it locked.
        #expect(await ChildProcess.wait(timeout: .seconds(15)) {
            (fixture.snapshot()?.generation ?? 0) > subscribed && Self.frames(lines).last?.locked == true
        })
        let relocked = fixture.snapshot()?.generation ?? 0

        // A later purchase fences the expiry's frames off.
        let bought = try await Self.ingest(fixture, Fixture.transaction(
            id: "3102", product: "com.irenews.geko.plus.lifetime", purchased: Date(), expires: nil))
        #expect(await ChildProcess.wait(timeout: .seconds(10)) { Self.frames(lines).contains { $0.generation == bought } })
        let frames = Self.frames(lines)
        guard let unlockedAt = frames.lastIndex(where: { $0.generation == subscribed && !$0.locked }),
              let fenceAt = frames.firstIndex(where: { $0.generation == bought })
        else {
            Issue.record("frames: \(frames)")
            return true
        }
        let atExpiry = Array(frames[(unlockedAt + 1)..<fenceAt])
        #expect(atExpiry.count == 1, "frames at the expiry: \(atExpiry)")
        #expect(atExpiry.first.map { $0.locked && !$0.stale && $0.generation == relocked } == true, "frames at the expiry: \(atExpiry)")
        if let lockedAt = atExpiry.first?.arrived {
            #expect(lockedAt.timeIntervalSince(expiry) > -0.05 && lockedAt.timeIntervalSince(expiry) < 1.0, "locked at \(lockedAt), expiry \(expiry)")
        }
        #expect(frames.filter { $0.generation == subscribed }.count == 1, "frames: \(frames)")
        #expect(await follower.stop() == 0)
        #expect(await daemon.stop() == 0)
        return true
    }

    @Test("With the daemon stopped the follower still locks at an expiry, once, from the snapshot it has, marked stale")
    func locksWithoutDaemon() async throws {
        try await withRoomForSetUp([10, 30, 60]) { window in try await Fixture.with { try await Self.locksWithoutDaemon($0, window: window) } }
    }

    /// One attempt with `window` seconds to the expiry; false when the set-up outlasted it.
    static func locksWithoutDaemon(_ fixture: Fixture, window: TimeInterval) async throws -> Bool {
        let daemon = try await fixture.startDaemon()
        defer { daemon.send(SIGKILL) }
        let (follower, lines) = try Self.startFollower(fixture)
        defer { follower.send(SIGKILL) }
        #expect(await ChildProcess.wait(timeout: .seconds(10)) { !Self.frames(lines).isEmpty })
        let expiry = Date().addingTimeInterval(window)
        let (subscribed, unlockedFrame) = try await Self.subscribe(fixture, lines, id: "3201", until: expiry)
        #expect(await daemon.stop() == 0)
        // The daemon must be gone before the expiry, or it is the daemon that locks, not the follower.
        guard unlockedFrame, Date() < expiry.addingTimeInterval(-1) else { return false }
        #expect(fixture.snapshot()?.generation == subscribed)

        #expect(await ChildProcess.wait(timeout: .seconds(Int(window) + 20)) { Self.frames(lines).last?.locked == true })
        // A daemon started again publishes a newer generation, which fences the expiry's frames off.
        let again = try await fixture.startDaemon()
        defer { again.send(SIGKILL) }
        #expect(await ChildProcess.wait(timeout: .seconds(10)) { Self.frames(lines).contains { ($0.generation ?? 0) > subscribed } })
        let frames = Self.frames(lines)
        let ofSubscription = frames.filter { $0.generation == subscribed }
        #expect(ofSubscription.count == 2, "frames: \(frames)")
        if let locked = ofSubscription.last, ofSubscription.count == 2 {
            #expect(locked.locked && locked.stale, "\(locked)")
            #expect(locked.arrived.timeIntervalSince(expiry) > 0 && locked.arrived.timeIntervalSince(expiry) < 3, "locked at \(locked.arrived), expiry \(expiry)")
        }
        #expect(await follower.stop() == 0)
        #expect(await again.stop() == 0)
        return true
    }
}
