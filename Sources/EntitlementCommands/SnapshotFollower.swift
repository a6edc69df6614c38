import Broker
import CLISupport
import EntitlementModel
import FileWatch
import FoundationEssentials
import ServiceRuntime
import EntitlementDefaults
import SharedDefaults

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

    private enum Wakeup: Sendable {
        case fileChanged, stop
        /// The reload timer for this instant fired.
        case reloadDate(Date)
        case watchFailed(String)
    }

    func run() async throws {
        let reader = SnapshotReader(suiteName: layout.group, container: layout.container)
        let signals = await SignalSequence.make([.terminate, .interrupt])
        let (wakeups, wake) = AsyncStream.makeStream(of: Wakeup.self, bufferingPolicy: .unbounded)
        let directory = layout.preferencesDirectory, name = layout.sharedFileName
        // Render at once (locked if nothing is there yet: the watch arms only once the directory
        // exists); the watch's first event re-reads, so a change between this read and the watch
        // being armed is not missed.
        wake.yield(.fileChanged)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in signals {
                    wake.yield(.stop)
                    return
                }
            }
            group.addTask {
                await DirectoryWatch(directory: directory, names: [name]).forEachEvent(
                    onFailure: { error in wake.yield(.watchFailed("\(error); falling back to polling every 250 ms")) },
                    { _ in wake.yield(.fileChanged) })
            }
            var timer: Task<Void, Never>?
            var reloadDue: Date?
            var printedAny = false
            loop: for await wakeup in wakeups {
                switch wakeup {
                case .stop: break loop
                case .watchFailed(let message):
                    StandardStreams.writeError("widget-renderer: \(message)\n")
                    continue
                case .fileChanged:
                    switch refresh(reader) {
                    case .updated: break
                    case .rejected, .unchanged, .missing:
                        if printedAny { continue }
                    }
                case .reloadDate(let date):
                    // A timer replaced after it fired (its wake-up was already queued) is not the pending one.
                    guard date == reloadDue else { continue }
                    // A publish whose watch event is still queued is rendered now, not after a frame without it.
                    _ = refresh(reader)
                }
                let snapshot = reader.lastGood
                let (output, reloadAt) = rendering.render(snapshot, now: Date())
                StandardStreams.writeOut(printedAny && rendering.format == .text ? "\n" + output : output)
                printedAny = true
                timer?.cancel()
                reloadDue = reloadAt.map { date in
                    date == snapshot?.nextTransition ? date.addingTimeInterval(Self.publishAllowance) : date
                }
                timer = reloadDue.map { due in
                    Task {
                        // Sleep again if woken early, and at most an hour at a time (the wall clock may jump).
                        while due.timeIntervalSinceNow > 0 {
                            do { try await Task.sleep(for: .seconds(min(due.timeIntervalSinceNow, 3600))) } catch { return }
                        }
                        wake.yield(.reloadDate(due))
                    }
                }
            }
            timer?.cancel()
            wake.finish()
            group.cancelAll()
        }
    }

    /// Reads the shared file; a refused one is reported on stderr and the last good snapshot kept.
    private func refresh(_ reader: SnapshotReader) -> SnapshotReadOutcome {
        let outcome = reader.refresh()
        if case .rejected(let reason, _) = outcome {
            StandardStreams.writeError("widget-renderer: ignored \(reason); keeping generation \(reader.lastGood.map { String($0.generation) } ?? "none")\n")
        }
        return outcome
    }
}
