import Broker
import CLISupport
import EntitlementModel
import FileWatch
import Foundation
import ServiceRuntime
import SharedDefaults

/// `widget-renderer --follow`: print on every published change and whenever a timeline's reload
/// date arrives (so a widget locks at expiry with no process publishing), until SIGINT/SIGTERM.
///
/// The shared file's directory is watched through inotify; a refused file (torn, foreign, older
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
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in signals {
                    wake.yield(.stop)
                    return
                }
            }
            group.addTask {
                do {
                    for try await _ in DirectoryWatch(directory: directory, names: [name]) { wake.yield(.fileChanged) }
                } catch is CancellationError {
                } catch {
                    wake.yield(.watchFailed("\(error)"))
                }
            }
            var timer: Task<Void, Never>?
            var printed: String?
            loop: for await wakeup in wakeups {
                switch wakeup {
                case .stop: break loop
                case .watchFailed(let message):
                    StandardStreams.writeError("widget-renderer: \(message)\n")
                    break loop
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
