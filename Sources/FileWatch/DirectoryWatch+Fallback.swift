extension DirectoryWatch {
    /// Calls `handler` for every event of this watch until the calling task is cancelled. If the
    /// watch fails (for example ENOSPC: the per-user watch limit, or EMFILE), calls `onFailure`
    /// once with the error — whose description names the `/proc/sys/fs/inotify` limit to raise — and
    /// keeps working by calling `handler(.overflow)` ("re-read everything") every `pollInterval`.
    ///
    /// Polling is only the degraded mode: while inotify works, nothing runs between events.
    public func forEachEvent(
        fallbackPollInterval pollInterval: Duration = .milliseconds(250),
        onFailure: (FileWatchError) async -> Void,
        _ handler: (FileWatchEvent) async -> Void
    ) async {
        do {
            for try await event in self { await handler(event) }
            return  // finished: the task was cancelled
        } catch {
            if Task.isCancelled { return }
            await onFailure(error)
        }
        while !Task.isCancelled {
            await handler(.overflow)
            do { try await Task.sleep(for: pollInterval) } catch { return }
        }
    }
}
