import Foundation
import Synchronization

/// Lines with the instant each arrived, collected from a child's output handler on another thread.
public final class TimestampedLines: Sendable {
    private let storage = Mutex<[(date: Date, line: String)]>([])

    public init() {}

    public func append(_ line: String) { storage.withLock { $0.append((Date(), line)) } }

    /// Every line so far, oldest first.
    public var all: [(date: Date, line: String)] { storage.withLock { $0 } }

    /// The first line (and its arrival) that satisfies `predicate`.
    public func first(where predicate: (Date, String) -> Bool) -> (date: Date, line: String)? {
        storage.withLock { $0.first { predicate($0.date, $0.line) } }
    }
}
