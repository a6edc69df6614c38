import FoundationEssentials
import ServiceRuntime
import Synchronization
import SystemShims

/// The companion link as one of the daemon's ``ServiceLoop`` sources: the loop's handler makes
/// the ``CompanionChannel`` (it needs the loaded catalog and outbox) and starts its thread here;
/// the thread posts ``DaemonService/Source/companionSynced`` through the source's sink, and the
/// loop's end stops it.
final class CompanionLinkSource: Sendable {
    private let sink = Mutex<ServiceLoopSink<DaemonService.Source>?>(nil)
    private let channel = Mutex<CompanionChannel?>(nil)
    private let finished = MonotonicWakeup()

    /// The source to give the loop: it keeps the loop's sink for the channel's thread, and the
    /// loop's end stops the channel.
    var source: ServiceLoopSource<DaemonService.Source> {
        ServiceLoopSource(start: { [self] sink in self.sink.withLock { $0 = sink } }, stop: { [self] in stop() })
    }

    /// Runs `channel` on a thread of its own until ``stop()``.
    func start(_ channel: CompanionChannel) throws(BrokerError) {
        self.channel.withLock { $0 = channel }
        do {
            try DetachedThread.start { [self] in
                channel.run(onSync: { [self] in self.sink.withLock { $0 }?.post(.companionSynced, coalescing: true) })
                finished.signal()
            }
        } catch {
            throw .insufficientResources("cannot start the companion link's thread: \(error)")
        }
    }

    /// Stops the channel and waits (a few seconds at most) for its last status write. Idempotent:
    /// the loop's end and the daemon's finish both call it, and only the first waits.
    func stop() {
        guard let channel = channel.withLock({ channel in defer { channel = nil }; return channel }) else { return }
        channel.stop()
        _ = finished.wait(timeoutSeconds: 5)
    }
}
