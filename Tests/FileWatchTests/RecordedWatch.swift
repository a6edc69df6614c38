import FileWatch

/// Runs a ``DirectoryWatch`` in a child task that records every event in an ``EventLog`` while `body` runs,
/// then cancels it.
///
/// - Parameter reporting: if given, the watch reports the names it accepts instead of `names`
///   (their arrivals only, with `arrivalsOnly`).
/// - Parameter holdAfterFirstEvent: if given, the consumer records the first event and then stops calling
///   `next()` until the gate opens, so that the test can act while nobody is reading.
func withRecordedWatch<T: Sendable>(
    directory: String,
    names: Set<String>?,
    settle: Duration = .zero,
    reporting isReported: (@Sendable (String) -> Bool)? = nil,
    arrivalsOnly: Bool = false,
    holdAfterFirstEvent gate: Gate? = nil,
    _ body: @Sendable (EventLog) async throws -> T
) async throws -> T {
    let log = EventLog()
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
            do throws(FileWatchError) {
                var isFirst = true
                let watch =
                    isReported.map { DirectoryWatch(directory: directory, settle: settle, arrivalsOnly: arrivalsOnly, reporting: $0) }
                    ?? DirectoryWatch(directory: directory, names: names, settle: settle)
                for try await event in watch {
                    log.append(event)
                    if isFirst, let gate { await gate.wait() }
                    isFirst = false
                }
                log.end(failure: nil)
            } catch {
                log.end(failure: error)
            }
        }
        defer { group.cancelAll() }
        return try await body(log)
    }
}
