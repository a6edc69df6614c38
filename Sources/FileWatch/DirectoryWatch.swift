/// Watches one directory with inotify and reports changes to chosen names in it, as an `AsyncSequence`.
///
/// ## Why the directory, not the file
/// Writers replace files atomically: they write a temporary file and `rename` it over the old name. The
/// rename gives the name a new inode, and a watch on the old file's inode would see nothing more. Watching the
/// directory sees the `IN_MOVED_TO` for the name whatever inode it points to, so the watch lives on the
/// directory and filters events by name.
///
/// ## Lifecycle
/// Nothing happens until iteration starts. The first `next()` starts one reader thread with its own inotify
/// instance; every iterator made from the same value is an independent watch. The first event is always
/// ``FileWatchEvent/armed``, delivered once the directory is watched: read the files then. If the directory
/// does not exist, the watcher waits (watching the nearest existing ancestor, without polling) and
/// delivers `armed` when it appears. If the directory is deleted or moved away, ``FileWatchEvent/directoryRemoved``
/// follows and then ``FileWatchEvent/rearmed`` when a directory is back at the same path.
///
/// ## Coalescing
/// Everything the reader has read but the consumer has not taken is merged into one bounded pending state,
/// and each `next()` takes all of it: a burst becomes one `changed` event carrying every name, or one
/// `overflow` ("re-read everything") when the kernel queue overflowed or too many distinct names changed.
/// No latency is added: a waiting consumer is resumed as soon as the first batch is read. While the
/// consumer is busy, new events wait in the kernel queue.
///
/// ## Ending
/// Cancelling the consuming task makes the pending `next()` return `nil`; the reader thread is woken through
/// an eventfd, closes its descriptors and exits before that `nil` is returned. Dropping an iterator also
/// ends its watch (asynchronously). A system error ends the sequence by throwing ``FileWatchError``.
///
/// ## Limits
/// The path is followed as given: renaming an *ancestor* of a watched directory is not noticed (inotify
/// reports nothing to the directory itself), and symbolic links are followed when the watch is added.
public struct DirectoryWatch: AsyncSequence, Sendable {
    public typealias Element = FileWatchEvent
    public typealias Failure = FileWatchError

    /// The watched directory's path, absolute or relative to the working directory at the first `next()`.
    public let directory: String
    /// The file names reported, or `nil` to report every name in the directory (or, for a watch
    /// made with ``init(directory:settle:arrivalsOnly:reporting:)``, the names its predicate accepts).
    public var names: Set<String>? { filter.names }
    /// Which names are reported: a set of names, every name, or a predicate.
    let filter: NameFilter
    /// How long name changes are held back, from the first one, to merge a burst into one event.
    public let settle: Duration

    /// Describes a watch; nothing is opened or started until iteration begins.
    /// - Parameters:
    ///   - directory: the directory to watch. It need not exist yet.
    ///   - names: plain file names inside `directory` to report (for example `["group.plist"]`), or `nil`
    ///     for every name. Other names, such as a writer's temporary files, are filtered out. A name
    ///     is matched byte for byte (its UTF-8) against the name the kernel reports, as the file
    ///     system tells names apart: the same text in another Unicode normalization names another
    ///     file and is not reported, although the two `String`s compare equal.
    ///   - settle: how long to hold back `changed` and `overflow` after the first change before delivering,
    ///     so that a burst becomes one event. The window starts at the first held-back change and is not
    ///     extended by later ones, so delivery is delayed by at most `settle`. Zero (the default) delivers as
    ///     soon as the events are read. `armed`, `directoryRemoved` and `rearmed` are never delayed.
    public init(directory: String, names: Set<String>?, settle: Duration = .zero) {
        self.directory = directory
        self.filter = NameFilter(names: names)
        self.settle = settle
    }

    /// Describes a watch that reports the names `isReported` accepts (for example every name but
    /// a writer's temporary files), as ``init(directory:names:settle:)`` does for a set of names:
    /// a change to any other name is dropped by the reader and wakes no consumer. ``names`` is
    /// `nil`. `isReported` runs on the reader's thread for each changed name, so it must be quick.
    /// With `arrivalsOnly`, a name that is deleted or moved away is not reported either (the kernel
    /// is not even asked for those events): for a consumer that acts only on what arrives, such as
    /// a spool directory's reader, whose own deletions would otherwise wake it.
    public init(
        directory: String, settle: Duration = .zero, arrivalsOnly: Bool = false, reporting isReported: @escaping @Sendable (String) -> Bool
    ) {
        self.directory = directory
        self.filter = NameFilter(isReported, arrivalsOnly: arrivalsOnly)
        self.settle = settle
    }

    /// Makes an independent watch. Nothing is opened until its first `next()`; dropping it ends the watch.
    public func makeAsyncIterator() -> Iterator {
        Iterator(session: WatchSession(directory: directory, filter: filter, settle: settle))
    }

    /// Iterates one watch. Use it from one task at a time.
    public struct Iterator: AsyncIteratorProtocol {
        /// Each value is one event of the watch.
        public typealias Element = FileWatchEvent
        /// The watch ends by throwing this, with the errno and the path.
        public typealias Failure = FileWatchError

        private let session: WatchSession
        /// Events already taken from the channel and not yet returned (at most two).
        private var ready: [FileWatchEvent] = []
        private var finished = false

        init(session: WatchSession) {
            self.session = session
        }

        /// The next event, waiting for one if needed.
        /// - Returns: `nil` once the consuming task is cancelled (after the reader has closed its descriptors).
        /// - Throws: ``FileWatchError`` when a system call fails (for example ENOSPC: the watch limit); the
        ///   sequence then ends.
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws(FileWatchError) -> FileWatchEvent? {
            if !ready.isEmpty { return ready.removeFirst() }
            if finished { return nil }
            let channel = session.channel
            if Task.isCancelled, !session.isStarted {
                finished = true  // Never started: nothing to stop.
                return nil
            }
            session.startIfNeeded()
            let delivery = await withTaskCancellationHandler {
                await withCheckedContinuation { (waiter: CheckedContinuation<WatchChannel.Delivery, Never>) in
                    channel.takeOrWait(waiter)
                }
            } onCancel: {
                channel.cancel()
            }
            switch delivery {
            case .changes(let changes):
                ready = changes.events
                return ready.isEmpty ? nil : ready.removeFirst()
            case .failed(let error):
                finished = true
                throw error
            case .ended:
                finished = true
                return nil
            }
        }

        /// The same as ``next(isolation:)`` without an isolation to inherit.
        public mutating func next() async throws(FileWatchError) -> FileWatchEvent? {
            try await next(isolation: nil)
        }
    }
}

/// One watch's link between its iterator and its reader thread; ends the watch when the iterator is dropped.
final class WatchSession {
    let channel = WatchChannel()
    private let directory: String
    private let filter: NameFilter
    private let settle: Duration
    private(set) var isStarted = false

    init(directory: String, filter: NameFilter, settle: Duration) {
        self.directory = directory
        self.filter = filter
        self.settle = settle
    }

    func startIfNeeded() {
        guard !isStarted else { return }
        isStarted = true
        WatchReader<WatchChannel>.start(directory: directory, filter: filter, settle: settle, consumer: channel)
    }

    deinit {
        channel.cancel()
    }
}
