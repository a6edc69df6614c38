import Entitlements
import FileWatch
import Foundation
import EntitlementDefaults
import SharedDefaults

/// The package's reader (helper role `package-reader`): a ``DirectoryWatch`` on the preferences
/// directory run on this process's thread (as a widget extension's dedicated thread would run it),
/// ``SnapshotReader/refresh()`` on every event, and a widget timeline for each new snapshot;
/// reports the generation once the entry is ready.
enum PackageReader {
    static func run(container: String, group: String, catalogPath: String, index: Int) throws -> Never {
        let maker = try WidgetEntryMaker(catalogPath: catalogPath)
        let reader = SnapshotReader(suiteName: group, container: container)
        let directory = container + "/Library/Preferences"
        try DirectoryWatch(directory: directory, names: [group + ".plist"]).forEachEventOnCurrentThread { event in
            if event == .armed { ReportPipe.emit(reader: index, generation: 0, nanoseconds: 0) }
            if case .updated(let snapshot) = reader.refresh() {
                maker.makeEntry(snapshot)
                ReportPipe.emit(reader: index, generation: snapshot.generation, nanoseconds: MonotonicClock.now())
            }
            return true
        }
        exit(0)
    }
}
