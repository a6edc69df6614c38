extension DirectoryWatch {
    /// Calls `handler` for every event of this watch until the calling task is cancelled. If the
    /// watch fails (for example ENOSPC: the per-user watch limit, or EMFILE), calls `onFailure`
    /// once with the error — whose description names the `/proc/sys/fs/inotify` limit to raise — and
    /// keeps working by calling `handler(.overflow)` ("re-read everything") every `pollInterval`.
    ///
    /// `handler` runs on the watch's reader thread, as soon as the kernel's events are read: no task
    /// is resumed, so an event reaches a handler that hands it on (posts it to a queue another thread
    /// waits on) with one cross-thread wake-up less than `for try await`. It must be quick and must
    /// not block: while it runs, new kernel events wait in the kernel queue. The events and their
    /// order are those of the `AsyncSequence`, each read delivered as soon as it is read (a burst
    /// read while the handler's consumer is busy is not merged with what it has not acted on yet:
    /// merge where the events are handed on, if needed). Once the watch failed, `handler` runs on
    /// the calling task.
    ///
    /// Polling is only the degraded mode: while inotify works, nothing runs between events.
    public func forEachEvent(
        fallbackPollInterval pollInterval: Duration = .milliseconds(250),
        onFailure: (FileWatchError) async -> Void,
        _ handler: @escaping @Sendable (FileWatchEvent) -> Void
    ) async {
        let forwarder = WatchForwarder(handler: handler)
        let failure = await withTaskCancellationHandler {
            await withCheckedContinuation { (finished: CheckedContinuation<FileWatchError?, Never>) in
                forwarder.waitForReader(finished)
                WatchReader<WatchForwarder>.start(directory: directory, filter: filter, settle: settle, consumer: forwarder)
            }
        } onCancel: {
            forwarder.cancel()
        }
        guard let failure, !Task.isCancelled else { return }  // cancelled: the reader has closed its descriptors
        await onFailure(failure)
        while !Task.isCancelled {
            handler(.overflow)
            do { try await Task.sleep(for: pollInterval) } catch { return }
        }
    }
}
