import SystemShims

/// Several ``DirectoryWatch``es on one inotify instance, read by the thread that owns the value:
/// what a service loop watches its directories with, so that a process holds one inotify instance
/// however many directories it watches (the per-user limit, `max_user_instances`, is 128 by default).
///
/// Nothing runs between events: the owner polls ``descriptor`` with its own descriptors and calls
/// ``readEvents(_:failed:)`` when it is readable. Each watch reports what its own iterator would
/// (``FileWatchEvent/armed`` first, once its directory exists; a missing or removed directory
/// waited for without polling), each read's changes merged into one event per watch. Their
/// `settle` windows are not applied.
///
/// A watch fails alone when its own watches cannot be placed (ENOSPC: the watch limit); every
/// watch fails when the instance cannot be made (EMFILE) or read. A failed watch is dropped and
/// reports nothing more.
public struct DirectoryWatchSet: ~Copyable {
    private let inotify: Inotify
    /// Each watch's tracker, in the order given; `nil` once it failed.
    private var trackers: [DirectoryTracker?]

    /// Opens the instance and arms every watch, calling `changed` with each watch's first events
    /// (`armed` for a directory that exists) and `failed` for each watch that cannot be armed,
    /// with the watch's index in `watches`.
    /// - Throws: ``FileWatchError`` with operation `.createInstance` (EMFILE: the per-user
    ///   instance limit), naming the first watch's directory; no watch is armed then.
    public init(
        _ watches: [DirectoryWatch], _ changed: (Int, FileWatchEvent) -> Void, failed: (Int, FileWatchError) -> Void
    ) throws(FileWatchError) {
        inotify = try Inotify(directory: watches.first?.directory ?? ".", wakeable: false)
        trackers = watches.map { DirectoryTracker(directory: $0.directory, filter: $0.filter) }
        for index in trackers.indices {
            var changes = PendingChanges()
            do throws(FileWatchError) {
                try trackers[index]?.arm(using: inotify, into: &changes)
            } catch {
                drop(index)
                failed(index, error)
                continue
            }
            changes.forEachEvent { event in
                changed(index, event)
                return true
            }
        }
    }

    /// The inotify descriptor to poll for input; `nil` once no watch is left.
    public var descriptor: CInt? {
        trackers.contains(where: { $0 != nil }) ? inotify.descriptor.rawValue : nil
    }

    /// Reads every event the kernel has queued and calls `changed` with what each watch reports
    /// (by its index), and `failed` for each watch that fails now.
    public mutating func readEvents(_ changed: (Int, FileWatchEvent) -> Void, failed: (Int, FileWatchError) -> Void) {
        var changes = trackers.map { _ in PendingChanges() }
        var failures: [(Int, FileWatchError)] = []
        do throws(FileWatchError) {
            while let batch = try inotify.readEvents() {
                try batch.forEach { event throws(FileWatchError) in
                    for index in trackers.indices where trackers[index] != nil {
                        do throws(FileWatchError) {
                            try trackers[index]?.handle(event, using: inotify, into: &changes[index])
                        } catch {
                            drop(index)
                            failures.append((index, error))
                        }
                    }
                }
                if !batch.mayHaveMore { break }
            }
        } catch {
            for index in trackers.indices where trackers[index] != nil {
                drop(index)
                failures.append((index, FileWatchError(errno: error.errno, path: error.path, operation: error.operation)))
            }
        }
        for index in changes.indices where trackers[index] != nil {
            changes[index].forEachEvent { event in
                changed(index, event)
                return true
            }
        }
        for (index, error) in failures { failed(index, error) }
    }

    /// Gives up watch `index`: releases its kernel watch and forgets it.
    private mutating func drop(_ index: Int) {
        if let watch = trackers[index]?.watch { inotify.removeWatch(watch.descriptor) }
        trackers[index] = nil
    }
}
