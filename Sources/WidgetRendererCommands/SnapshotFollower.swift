import CLISupport
import EntitlementModel
import FoundationEssentials
import ServiceRuntime
import EntitlementDefaults
import SharedDefaults
import ToolSupport

/// `widget-renderer --follow`: print on every published change and whenever a timeline's reload
/// date arrives (so a widget locks at expiry with no process publishing), until SIGINT/SIGTERM.
///
/// A frame is printed when what it shows may have changed, never because time passed: once at
/// start, when the reader accepts a newer snapshot, and when the pending reload date arrives. A
/// watch event that brings nothing new (the watch's own `armed`, a rewrite with the same snapshot,
/// a refused file) prints nothing.
///
/// At a transition the snapshot's writer is due to publish (its `nextTransition`: the daemon
/// publishes at every transition), the follower gives that publish ``publishAllowance`` to arrive
/// before it renders the transition from the snapshot it has; the publish then makes the one frame
/// for that instant. With no daemon running the widget still locks, that much later, from the
/// expiry dates its snapshot carries, and says the data is stale.
///
/// The shared file's directory is watched through inotify (polled every 250 ms only if inotify
/// fails, e.g. at the watch limit); a refused file (torn, foreign, older
/// generation) is reported on stderr and the last good snapshot is kept.
struct SnapshotFollower {
    let layout: ContainerLayout
    let rendering: TimelineRendering

    /// How long after a due publish the follower waits for it before rendering without it.
    static let publishAllowance: TimeInterval = 0.5

    /// How long a stop may take (a frame being written to a stalled pipe) before the process
    /// exits without finishing it.
    static let shutdownDeadline: Duration = .seconds(5)

    func run() async throws {
        let directory = layout.preferencesDirectory, name = layout.sharedFileName
        // Every watch event re-reads (the first, `armed`, too: a change between the first read
        // and the watch being armed is not missed); one queued re-read covers a burst.
        let watch = ServiceLoopSource<FollowerService.Source>.directory(
            directory, names: [name], coalescing: true, onFailure: { .watchFailed("\($0); falling back to polling every 250 ms") }
        ) { _ in .fileChanged }
        let loop = ServiceLoop(name: "widget-renderer", shutdownDeadline: Self.shutdownDeadline)
        let layout = layout, rendering = rendering
        _ = await loop.run(sources: [watch]) { FollowerService(layout: layout, rendering: rendering) }
    }
}

/// What ``SnapshotFollower`` does on each event of its loop, on the loop's thread: re-read the
/// shared file and print a frame when what it shows may have changed.
private struct FollowerService: ServiceLoopHandler {
    enum Source: Sendable {
        case fileChanged
        case watchFailed(String)
    }

    let reader: SnapshotReader
    let rendering: TimelineRendering
    /// When the frame printed last must be rendered again (a reload date, plus the publish
    /// allowance at a transition the writer is due to publish).
    var reloadDue: Date?
    var printedAny = false

    init(layout: ContainerLayout, rendering: TimelineRendering) {
        reader = SnapshotReader(suiteName: layout.group, container: layout.container)
        self.rendering = rendering
    }

    mutating func handle(_ event: ServiceLoopEvent<Source>) -> ServiceLoopStep {
        switch event {
        case .stop: return .stop
        case .signal: return .wait(until: reloadDue)
        case .source(.watchFailed(let message)):
            StandardStreams.writeError("widget-renderer: \(message)\n")
            return .wait(until: reloadDue)
        case .start, .source(.fileChanged):
            // Render at once at start (locked if nothing is there yet: the watch arms only once
            // the directory exists); later, only when the reader took a newer snapshot.
            let watchReported: Bool = if case .start = event { false } else { true }
            switch refresh(changeReported: watchReported) {
            case .updated: break
            case .rejected, .unchanged, .missing:
                if printedAny { return .wait(until: reloadDue) }
            }
        case .deadline:
            // A publish whose watch event is still queued is rendered now, not after a frame without it.
            _ = refresh()
        }
        let snapshot = reader.lastGood
        let (output, reloadAt) = rendering.render(snapshot, now: Date())
        StandardStreams.writeOut(printedAny && rendering.format == .text ? "\n" + output : output)
        printedAny = true
        reloadDue = reloadAt.map { date in
            date == snapshot?.nextTransition ? date.addingTimeInterval(SnapshotFollower.publishAllowance) : date
        }
        return .wait(until: reloadDue)
    }

    /// Reads the shared file; a refused one is reported on stderr and the last good snapshot kept.
    private func refresh(changeReported: Bool = false) -> SnapshotReadOutcome {
        let outcome = reader.refresh(changeReported: changeReported)
        if case .rejected(let reason, _) = outcome {
            StandardStreams.writeError("widget-renderer: ignored \(reason); keeping generation \(reader.lastGood.map { String($0.generation) } ?? "none")\n")
        }
        return outcome
    }
}
