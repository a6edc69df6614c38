import Entitlements
import Foundation
// The benchmark calls the C library directly on purpose: its floors are the kernel without SystemShims.
import Glibc
import EntitlementDefaults
import SharedDefaults

/// A peer (helper role `stat-poller`): what an app would write without inotify — `stat()` the
/// shared file every millisecond and, when it changed, read it with ``SnapshotReader`` and build
/// the widget entry.
enum StatPollingReader {
    static func run(container: String, group: String, catalogPath: String, index: Int) throws -> Never {
        let maker = try WidgetEntryMaker(catalogPath: catalogPath)
        let reader = SnapshotReader(suiteName: group, container: container)
        let path = container + "/Library/Preferences/" + group + ".plist"
        var seen = stat()
        _ = stat(path, &seen)
        ReportPipe.emit(reader: index, generation: 0, nanoseconds: 0)
        while true {
            usleep(1000)
            var now = stat()
            guard stat(path, &now) == 0 else { continue }
            if now.st_ino == seen.st_ino, now.st_mtim.tv_nsec == seen.st_mtim.tv_nsec, now.st_mtim.tv_sec == seen.st_mtim.tv_sec,
                now.st_size == seen.st_size
            {
                continue
            }
            seen = now
            if case .updated(let snapshot) = reader.refresh() {
                maker.makeEntry(snapshot)
                ReportPipe.emit(reader: index, generation: snapshot.generation, nanoseconds: MonotonicClock.now())
            }
        }
    }
}
