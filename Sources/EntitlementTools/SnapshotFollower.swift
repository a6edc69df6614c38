import CLISupport
import Entitlements
import FoundationEssentials
import ServiceRuntime
import EntitlementDefaults
import SharedDefaults
import SystemShims

/// `widget-renderer --follow`: print on every published change and whenever a timeline's reload
/// date arrives (so a widget locks at expiry with no process publishing), until SIGINT/SIGTERM
/// or until its standard output is closed (a reader such as `head` that has what it wanted:
/// exit 0; another failing write ends it with the write's error).
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
/// generation) is reported on stderr and the last good snapshot is kept. A read that failed (a
/// system call's error such as `EMFILE`, which says nothing about the file) is tried again with
/// a back-off (``RetryBackoff``) until it succeeds, and meanwhile the frame marks every entry
/// stale: what it shows may be out of date.
struct SnapshotFollower {
    let layout: ContainerLayout
    let rendering: TimelineRendering

    /// How long after a due publish the follower waits for it before rendering without it.
    static let publishAllowance: TimeInterval = 0.5

    /// How long a stop may take (a frame being written to a stalled pipe) before the process
    /// exits without finishing it.
    static let shutdownDeadline: Duration = .seconds(5)

    /// Runs on the calling thread, which it blocks (see ``ServiceLoop``).
    func run() throws {
        let directory = layout.preferencesDirectory, name = layout.sharedFileName
        // Every watch event re-reads (the first, `armed`, too: a change between the first read
        // and the watch being armed is not missed); one queued re-read covers a burst.
        let watch = ServiceLoopSource<FollowerService.Source>.directory(
            directory, names: [name], coalescing: true, onFailure: { .watchFailed("\($0); falling back to polling every 250 ms") }
        ) { _ in .fileChanged }
        let loop = ServiceLoop(name: "widget-renderer", shutdownDeadline: Self.shutdownDeadline)
        let layout = layout, rendering = rendering
        // A reader that leaves (`| head -1`) ends the follower at once, not at a next frame that
        // may never come (a lifetime purchase's timeline never reloads).
        let readerGone = ServiceLoopSource<FollowerService.Source>.readerOfStandardOutputGone(.outputClosed)
        let service = loop.run(sources: [watch, readerGone]) { FollowerService(layout: layout, rendering: rendering) }
        // A closed pipe (EPIPE: the reader has what it wanted) ends the follower successfully, as
        // it ends every filter; any other failed write is an error.
        if let failure = service.outputFailure, failure != .brokenPipe {
            throw ToolError(ExitCode(failedCall: failure), "<stdout>: write failed: \(failure)")
        }
    }
}

/// What ``SnapshotFollower`` does on each event of its loop, on the loop's thread: re-read the
/// shared file and print a frame when what it shows may have changed.
private struct FollowerService: ServiceLoopHandler {
    enum Source: Sendable {
        case fileChanged
        case watchFailed(String)
        /// Standard output is a pipe whose reader has left.
        case outputClosed
    }

    let reader: SnapshotReader
    let rendering: TimelineRendering
    /// When the frame printed last must be rendered again (a reload date, plus the publish
    /// allowance at a transition the writer is due to publish).
    var reloadDue: Date?
    var printedAny = false
    /// When to read the shared file again after a read failed; `nil` while reads succeed.
    var retryDue: Date?
    /// Why the last read failed, as last reported on stderr; `nil` while reads succeed.
    var failure: String?
    var retries = RetryBackoff()
    /// Why writing a frame failed, which ended the loop; `nil` while output works.
    var outputFailure: Errno?

    init(layout: ContainerLayout, rendering: TimelineRendering) {
        reader = SnapshotReader(suiteName: layout.group, container: layout.container)
        self.rendering = rendering
    }

    /// The wait after an event: until the reload date or the retry of a failed read, whichever comes first.
    private var next: ServiceLoopStep {
        .wait(until: [reloadDue, retryDue].compactMap { $0 }.min())
    }

    mutating func handle(_ event: ServiceLoopEvent<Source>) -> ServiceLoopStep {
        switch event {
        case .stop: return .stop
        case .signal: return next
        case .source(.outputClosed):
            outputFailure = .brokenPipe
            return .stop
        case .source(.watchFailed(let message)):
            StandardStreams.writeError("widget-renderer: \(message)\n")
            return next
        case .start, .source(.fileChanged):
            // Render at once at start (locked if nothing is there yet: the watch arms only once
            // the directory exists); later, only when what a frame shows changed.
            if !refresh(), printedAny { return next }
        case .deadline:
            // A publish whose watch event is still queued is rendered now, not after a frame without it.
            let reloading = reloadDue.map { $0 <= Date() } ?? false
            if !refresh(), !reloading { return next }
        }
        let snapshot = reader.lastGood
        let (output, reloadAt) = rendering.render(snapshot, now: Date(), stale: retryDue != nil)
        if let failure = StandardStreams.writeOut(printedAny && rendering.format == .text ? "\n" + output : output) {
            outputFailure = failure
            return .stop
        }
        printedAny = true
        reloadDue = reloadAt.map { date in
            date == snapshot?.nextTransition ? date.addingTimeInterval(SnapshotFollower.publishAllowance) : date
        }
        return next
    }

    /// Reads the shared file and returns whether what a frame shows changed: a newer snapshot,
    /// or a read that failed or succeeded again (the frame's staleness). A refused file is
    /// reported on stderr and the last good snapshot kept; a failed read too, and it is tried
    /// again after the back-off.
    private mutating func refresh() -> Bool {
        let outcome = reader.refresh()
        let wasFailing = retryDue != nil
        let kept = reader.lastGood.map { String($0.generation) } ?? "none"
        switch outcome {
        case .failed(let reason, _, _):
            retryDue = Date().addingTimeInterval(retries.failed())
            // Said once per reason, not at every retry (or every poll, without inotify).
            if reason != failure {
                StandardStreams.writeError("widget-renderer: \(reason); showing generation \(kept) as stale, reading again with a back-off\n")
                failure = reason
            }
            return !wasFailing
        case .rejected(let reason, _):
            StandardStreams.writeError("widget-renderer: ignored \(reason); keeping generation \(kept)\n")
        case .updated, .unchanged, .missing: break
        }
        if wasFailing {
            retryDue = nil
            failure = nil
            StandardStreams.writeError("widget-renderer: read \(reader.path) again after \(retries.succeeded()) failed tries\n")
        }
        if case .updated = outcome { return true }
        return wasFailing
    }
}
