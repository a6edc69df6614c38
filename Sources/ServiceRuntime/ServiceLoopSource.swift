import FileWatch

/// Something that wakes a ``ServiceLoop``, posting events for its handler: a directory's changes
/// or standard output's reader leaving, which the loop's thread waits for itself, among its own
/// descriptors; or a source run elsewhere (a thread of its own) that posts through the sink it
/// is given.
public struct ServiceLoopSource<Event: Sendable>: Sendable {
    enum Kind: Sendable {
        case directory(
            DirectoryWatch, coalescing: Bool, onFailure: @Sendable (FileWatchError) -> Event, event: @Sendable (FileWatchEvent) -> Event)
        case readerOfStandardOutputGone(Event)
        case attached(start: @Sendable (ServiceLoopSink<Event>) -> Void, stop: @Sendable () -> Void)
    }

    let kind: Kind

    /// A source that runs on threads of its own: `start` gets the sink when the loop starts
    /// (before the handler is made) and must return promptly; `stop` is called when the loop
    /// ends, on the loop's thread, and returns once the source posts nothing more.
    public init(start: @escaping @Sendable (ServiceLoopSink<Event>) -> Void, stop: @escaping @Sendable () -> Void) {
        kind = .attached(start: start, stop: stop)
    }

    private init(kind: Kind) {
        self.kind = kind
    }

    /// Changes in `directory` (filtered by `names`, `nil` for every name), each turned into an
    /// event by `event`; the first is ``FileWatchEvent/armed``, once the directory exists. With
    /// `coalescing`, a change is dropped while the previous one is still queued, so the handler
    /// sees one event per burst and reads everything the burst brought.
    ///
    /// Every directory source of a loop shares the loop's one inotify instance
    /// (``DirectoryWatchSet``), read on the loop's thread. If inotify fails (the watch limit,
    /// EMFILE), the source posts `onFailure(error)` once and keeps working by posting
    /// `event(.overflow)` ("re-read everything") every 250 ms.
    public static func directory(
        _ directory: String, names: Set<String>?, coalescing: Bool = false,
        onFailure: @escaping @Sendable (FileWatchError) -> Event, _ event: @escaping @Sendable (FileWatchEvent) -> Event
    ) -> ServiceLoopSource {
        ServiceLoopSource(
            kind: .directory(DirectoryWatch(directory: directory, names: names), coalescing: coalescing, onFailure: onFailure, event: event))
    }

    /// ``directory(_:names:coalescing:onFailure:_:)`` for the names `isReported` accepts (see
    /// ``DirectoryWatch/init(directory:settle:arrivalsOnly:reporting:)``): a change to any other
    /// name (a writer's temporary file, say), and with `arrivalsOnly` a removal, posts nothing.
    public static func directory(
        _ directory: String, reporting isReported: @escaping @Sendable (String) -> Bool, arrivalsOnly: Bool = false,
        coalescing: Bool = false,
        onFailure: @escaping @Sendable (FileWatchError) -> Event, _ event: @escaping @Sendable (FileWatchEvent) -> Event
    ) -> ServiceLoopSource {
        ServiceLoopSource(
            kind: .directory(
                DirectoryWatch(directory: directory, arrivalsOnly: arrivalsOnly, reporting: isReported), coalescing: coalescing,
                onFailure: onFailure, event: event))
    }

    /// Posts `event` once when standard output is a pipe whose reader has left (`| head -1` has
    /// its line), so a process whose job is its output ends then, not at a next write that may
    /// never come. Output that is not a pipe (a terminal, a file) posts nothing: only a failed
    /// write can tell that it is gone. The loop's thread polls standard output for it (`POLLERR`).
    public static func readerOfStandardOutputGone(_ event: Event) -> ServiceLoopSource {
        ServiceLoopSource(kind: .readerOfStandardOutputGone(event))
    }
}

/// Where a ``ServiceLoopSource`` posts its events; safe to use from any thread.
public struct ServiceLoopSink<Event: Sendable>: Sendable {
    let mailbox: LoopMailbox<Event>
    /// The source's place in the loop's list, the key its coalescing posts share.
    let key: Int

    /// Queues `event` for the handler. With `coalescing`, nothing is queued while an earlier
    /// coalescing post of this source is still waiting to be handled.
    public func post(_ event: Event, coalescing: Bool = false) {
        mailbox.post(.source(event), coalescingKey: coalescing ? key : nil)
    }
}
