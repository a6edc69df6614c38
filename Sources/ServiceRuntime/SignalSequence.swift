import Dispatch

/// Signals delivered to this process, as an `AsyncSequence`.
///
/// One `DispatchSourceSignal` per signal on a private serial queue feeds an `AsyncStream`.
/// ``make(_:)`` returns only once every source is registered, so a signal sent after it returns
/// is never lost. On Linux libdispatch installs its own handler when a source registers, so this
/// type never changes a signal's disposition itself (Vapor #3174). Cancelling the consuming task
/// or dropping the sequence cancels the sources.
public struct SignalSequence: AsyncSequence, Sendable {
    public typealias Element = UnixSignal

    private let stream: AsyncStream<UnixSignal>

    private init(stream: AsyncStream<UnixSignal>) { self.stream = stream }

    /// Starts listening for `signals` and returns once all sources are registered.
    public static func make(_ signals: [UnixSignal]) async -> SignalSequence {
        let queue = DispatchQueue(label: "ServiceRuntime.SignalSequence")
        let (stream, continuation) = AsyncStream.makeStream(of: UnixSignal.self, bufferingPolicy: .unbounded)
        let sources = signals.map { signal in
            let source = DispatchSource.makeSignalSource(signal: signal.rawValue, queue: queue)
            source.setEventHandler {
                for _ in 0..<Swift.max(1, Int(source.data)) { continuation.yield(signal) }
            }
            return (signal, source)
        }
        let box = SourceBox(sources.map { $0.1 })
        continuation.onTermination = { _ in box.cancelAll() }
        for (_, source) in sources {
            await withCheckedContinuation { (registered: CheckedContinuation<Void, Never>) in
                source.setRegistrationHandler { registered.resume() }
                source.activate()
            }
        }
        return SignalSequence(stream: stream)
    }

    public func makeAsyncIterator() -> AsyncStream<UnixSignal>.AsyncIterator { stream.makeAsyncIterator() }
}

/// Holds the dispatch sources so the stream's termination can cancel them.
private final class SourceBox: @unchecked Sendable {
    // Written once in init, read once in cancelAll; DispatchSource.cancel is thread-safe.
    private let sources: [any DispatchSourceSignal]
    init(_ sources: [any DispatchSourceSignal]) { self.sources = sources }
    func cancelAll() { sources.forEach { $0.cancel() } }
}
