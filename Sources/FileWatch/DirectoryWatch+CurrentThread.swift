extension DirectoryWatch {
    /// Runs this watch on the calling thread and calls `handler` inline for every event, until `handler`
    /// returns `false` or a system call fails.
    ///
    /// The events, their order and their coalescing are those of the `AsyncSequence` (the first is
    /// ``FileWatchEvent/armed``; a missing or removed directory is waited for without polling; `settle` holds
    /// name changes back the same way). What differs is where the work runs: there is no reader thread, no
    /// hand-off and no task to resume, so the handler runs as soon as the kernel's events are read — one
    /// cross-thread wake-up less per event than `for try await`. Use it on a thread dedicated to the watch
    /// (a widget extension's or a benchmark reader's): the call blocks that thread between events (in the
    /// inotify `read` itself when `settle` is zero, else in `poll`), ignores task cancellation, and can only be
    /// ended from inside `handler`.
    ///
    /// While `handler` runs, new kernel events wait in the kernel queue (bounded by `max_queued_events`; an
    /// overflow is reported as ``FileWatchEvent/overflow``), exactly as while an iterator's consumer is busy.
    ///
    /// - Parameter handler: called on the calling thread with each event; return `true` to keep watching,
    ///   `false` to stop. Once it returns `false` it is not called again.
    /// - Throws: ``FileWatchError`` when a system call fails (for example ENOSPC: the watch limit, or EMFILE).
    ///   Both descriptors of the watch are closed before this returns or throws.
    public func forEachEventOnCurrentThread(_ handler: (FileWatchEvent) -> Bool) throws(FileWatchError) {
        let failure = withoutActuallyEscaping(handler) { handler -> FileWatchError? in
            let inotify: Inotify
            do throws(FileWatchError) {
                // With no settle window there is no timeout to wait for, and no other thread
                // wakes this one: wait for events in the inotify `read` itself.
                inotify = try Inotify(directory: directory, blocksInRead: settle <= .zero)
            } catch {
                return error
            }
            var reader = WatchReader(
                inotify: inotify, tracker: DirectoryTracker(directory: directory, filter: filter),
                consumer: InlineWatchConsumer(handler: handler), settle: settle)
            let failure = reader.readUntilCancelled()
            reader.close()
            return failure
        }
        if let failure { throw failure }
    }
}

/// The consumer of ``DirectoryWatch/forEachEventOnCurrentThread(_:)``: calls the handler with each event on
/// the reader's (the caller's) thread and stops the reader once the handler returns `false`.
struct InlineWatchConsumer: WatchConsumer {
    let handler: (FileWatchEvent) -> Bool
    private(set) var stopped = false

    init(handler: @escaping (FileWatchEvent) -> Bool) {
        self.handler = handler
    }

    /// Nothing is ever pending: every change was handed to the handler before the reader reads on.
    func readerStatus() -> (cancelled: Bool, hasPending: Bool) {
        (stopped, false)
    }

    mutating func publish(_ changes: PendingChanges) {
        guard !stopped else { return }
        var stopped = false
        changes.forEachEvent { event in
            stopped = !handler(event)
            return !stopped
        }
        self.stopped = stopped
    }
}
