import FileWatch

/// Something that wakes a ``ServiceLoop``: a body run as a child task of the loop for as long as
/// the loop runs, posting events through the sink it is given. The body must return promptly
/// once its task is cancelled (the loop waits for it before ``ServiceLoop/run(sources:_:)``
/// returns).
public struct ServiceLoopSource<Event: Sendable>: Sendable {
    let body: @Sendable (ServiceLoopSink<Event>) async -> Void

    /// A source that runs `body` until the loop ends (its task is then cancelled).
    public init(_ body: @escaping @Sendable (ServiceLoopSink<Event>) async -> Void) {
        self.body = body
    }

    /// Changes in `directory` (filtered by `names`, `nil` for every name), each turned into an
    /// event by `event`. With `coalescing`, a change is dropped while the previous one is still
    /// queued, so the handler sees one event per burst and reads everything the burst brought.
    ///
    /// If inotify fails (the watch limit, EMFILE), the source posts `onFailure(error)` once and
    /// keeps working by posting `event(.overflow)` ("re-read everything") every 250 ms.
    public static func directory(
        _ directory: String, names: Set<String>?, coalescing: Bool = false,
        onFailure: @escaping @Sendable (FileWatchError) -> Event, _ event: @escaping @Sendable (FileWatchEvent) -> Event
    ) -> ServiceLoopSource {
        watching(DirectoryWatch(directory: directory, names: names), coalescing: coalescing, onFailure: onFailure, event)
    }

    /// ``directory(_:names:coalescing:onFailure:_:)`` for the names `isReported` accepts (see
    /// ``DirectoryWatch/init(directory:settle:arrivalsOnly:reporting:)``): a change to any other
    /// name (a writer's temporary file, say), and with `arrivalsOnly` a removal, posts nothing.
    public static func directory(
        _ directory: String, reporting isReported: @escaping @Sendable (String) -> Bool, arrivalsOnly: Bool = false,
        coalescing: Bool = false,
        onFailure: @escaping @Sendable (FileWatchError) -> Event, _ event: @escaping @Sendable (FileWatchEvent) -> Event
    ) -> ServiceLoopSource {
        watching(
            DirectoryWatch(directory: directory, arrivalsOnly: arrivalsOnly, reporting: isReported), coalescing: coalescing,
            onFailure: onFailure, event)
    }

    private static func watching(
        _ watch: DirectoryWatch, coalescing: Bool,
        onFailure: @escaping @Sendable (FileWatchError) -> Event, _ event: @escaping @Sendable (FileWatchEvent) -> Event
    ) -> ServiceLoopSource {
        ServiceLoopSource { sink in
            await watch.forEachEvent(
                onFailure: { error in sink.post(onFailure(error)) },
                { change in sink.post(event(change), coalescing: coalescing) })
        }
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
