import FileWatch
import SystemShims

/// What a ``ServiceLoop``'s thread waits on in `poll(2)` between events, and what it makes of each:
/// the mailbox's event counter (a post from another thread), the signal relay, the one inotify
/// instance of every directory source (``DirectoryWatchSet``), and standard output for a source
/// that waits for its reader to leave. A directory source whose watch failed is served by a timer
/// instead: "re-read everything" every ``ServiceLoop/fallbackPollMilliseconds``.
struct LoopDescriptors<Event: Sendable>: ~Copyable {
    /// One directory source, by its place in the loop's list.
    private struct Directory {
        var source: Int
        var coalescing: Bool
        var onFailure: @Sendable (FileWatchError) -> Event
        var event: @Sendable (FileWatchEvent) -> Event
    }

    private let mailbox: LoopMailbox<Event>
    private let relay: CInt
    private var watches: DirectoryWatchSet?
    /// The descriptor of ``watches`` while any of its watches works.
    private var watchDescriptor: CInt?
    private let directories: [Directory]
    /// For each directory whose watch failed (by its place in ``directories``), when it next
    /// posts "re-read everything" (`Clocks.monotonicNanoseconds`).
    private var fallbackDue: [Int: UInt64] = [:]
    /// The event to post when standard output's reader leaves; `nil` when nobody asked, output
    /// is no pipe, or it was posted.
    private var readerGone: Event?

    /// Arms every directory source's watch, queueing their first events, before the handler is made.
    init(sources: [ServiceLoopSource<Event>], mailbox: LoopMailbox<Event>, relay: CInt) {
        self.mailbox = mailbox
        self.relay = relay
        var directories: [Directory] = []
        var watched: [DirectoryWatch] = []
        // By index: `enumerated()` in this generic code would look its iterator's type up in
        // the binary's conformances at run time, at every start.
        for index in sources.indices {
            switch sources[index].kind {
            case .directory(let watch, let coalescing, let onFailure, let event):
                directories.append(Directory(source: index, coalescing: coalescing, onFailure: onFailure, event: event))
                watched.append(watch)
            case .readerOfStandardOutputGone(let event):
                if FileDescriptor.isPipe(FileDescriptor.standardOutput) { readerGone = event }
            case .attached:
                break
            }
        }
        self.directories = directories
        guard !watched.isEmpty else { return }
        var failures: [(Int, FileWatchError)] = []
        var armed: [(Int, FileWatchEvent)] = []
        do throws(FileWatchError) {
            let set = try DirectoryWatchSet(watched, { armed.append(($0, $1)) }, failed: { failures.append(($0, $1)) })
            watchDescriptor = set.descriptor
            watches = consume set
        } catch {
            failures = watched.indices.map { index in
                (index, FileWatchError(errno: error.errno, path: watched[index].directory, operation: error.operation))
            }
        }
        for (index, event) in armed { post(index, event) }
        for (index, error) in failures { fail(index, error) }
    }

    /// Waits at most `timeoutMilliseconds` for any of the loop's descriptors (or a fallback timer)
    /// and queues what they brought; returns whether the mailbox's counter was readable.
    mutating func wait(timeoutMilliseconds: CInt) -> Bool {
        var timeout = timeoutMilliseconds
        if let due = fallbackDue.values.min() {
            let now = Clocks.monotonicNanoseconds
            timeout = due <= now ? 0 : min(timeout, CInt(clamping: (due - now + 999_999) / 1_000_000))
        }
        var requests = [
            PollRequest(descriptor: mailbox.wakeDescriptor, read: true, write: false),
            PollRequest(descriptor: relay, read: true, write: false),
        ]
        // Asked for no event: standard output is polled only for its reader's departure (POLLERR).
        requests.append(PollRequest(descriptor: readerGone == nil ? -1 : FileDescriptor.standardOutput, read: false, write: false))
        requests.append(PollRequest(descriptor: watchDescriptor ?? -1, read: true, write: false))
        guard let results = try? pollDescriptors(requests, timeoutMilliseconds: timeout) else { return false }
        if results[1].readable { SignalRelay.deliverPending() }
        if results[2].failed, let event = readerGone {
            readerGone = nil
            mailbox.postFromConsumer(.source(event))
        }
        if results[3].readable || results[3].failed { readWatches() }
        postFallbacks()
        return results[0].readable
    }

    private mutating func readWatches() {
        guard var set = watches.take() else { return }
        var changes: [(Int, FileWatchEvent)] = []
        var failures: [(Int, FileWatchError)] = []
        set.readEvents({ changes.append(($0, $1)) }, failed: { failures.append(($0, $1)) })
        watchDescriptor = set.descriptor
        watches = consume set
        for (index, event) in changes { post(index, event) }
        for (index, error) in failures { fail(index, error) }
    }

    /// Queues directory `index`'s `change` for the handler.
    private func post(_ index: Int, _ change: FileWatchEvent) {
        let directory = directories[index]
        mailbox.postFromConsumer(.source(directory.event(change)), coalescingKey: directory.coalescing ? directory.source : nil)
    }

    /// Reports that directory `index`'s watch failed, and serves it by the timer from now on.
    private mutating func fail(_ index: Int, _ error: FileWatchError) {
        mailbox.postFromConsumer(.source(directories[index].onFailure(error)))
        post(index, .overflow)
        fallbackDue[index] = Clocks.monotonicNanoseconds + ServiceLoop.fallbackPollMilliseconds * 1_000_000
    }

    /// Posts "re-read everything" for each failed watch whose timer is due.
    private mutating func postFallbacks() {
        guard !fallbackDue.isEmpty else { return }
        let now = Clocks.monotonicNanoseconds
        for (index, due) in fallbackDue where due <= now {
            post(index, .overflow)
            fallbackDue[index] = now + ServiceLoop.fallbackPollMilliseconds * 1_000_000
        }
    }
}
