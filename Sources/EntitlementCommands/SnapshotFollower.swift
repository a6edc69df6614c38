import Broker
import CLISupport
import EntitlementModel
import FileWatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ServiceRuntime
import SharedDefaults

/// `widget-renderer --follow`: print on every published change and whenever a timeline's reload
/// date arrives (so a widget locks at expiry with no process publishing), until SIGINT/SIGTERM.
///
/// The shared file's directory is watched through inotify (polled every 250 ms only if inotify
/// fails, e.g. at the watch limit); a refused file (torn, foreign, older
/// generation) is reported on stderr and the last good snapshot is kept.
struct SnapshotFollower {
    let layout: ContainerLayout
    let rendering: TimelineRendering

    private enum Wakeup: Sendable {
        case fileChanged, reloadDate, stop
        case watchFailed(String)
    }

    func run() async throws {
        let reader = SnapshotReader(suiteName: layout.group, container: layout.container)
        let signals = await SignalSequence.make([.terminate, .interrupt])
        let (wakeups, wake) = AsyncStream.makeStream(of: Wakeup.self, bufferingPolicy: .unbounded)
        let directory = layout.preferencesDirectory, name = layout.sharedFileName
        // Render at once (locked if nothing is there yet); the watch's first event re-reads, so a
        // change between this read and the watch being armed is not missed.
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
            var printed: String?
            loop: for await wakeup in wakeups {
                switch wakeup {
                case .stop: break loop
                case .watchFailed(let message):
                    StandardStreams.writeError("widget-renderer: \(message)\n")
                    continue
                case .fileChanged:
                    if case .rejected(let reason, _) = reader.refresh() {
                        StandardStreams.writeError("widget-renderer: ignored \(reason); keeping generation \(reader.lastGood.map { String($0.generation) } ?? "none")\n")
                    }
                case .reloadDate:
                    break
                }
                let (output, reloadAt) = rendering.render(reader.lastGood, now: Date())
                if output != printed {
                    StandardStreams.writeOut(output)
                    printed = output
                }
                timer?.cancel()
                timer = reloadAt.map { date in
                    Task {
                        let delay = max(0, date.timeIntervalSinceNow) + 0.001
                        do { try await Task.sleep(for: .seconds(min(delay, 3600))) } catch { return }
                        wake.yield(.reloadDate)
                    }
                }
            }
            timer?.cancel()
            wake.finish()
            group.cancelAll()
        }
    }
}
