import EntitlementModel
import FileWatch
import Foundation
import SharedDefaults

/// The package's reader (helper role `package-reader`): ``DirectoryWatch`` on the preferences
/// directory, ``SnapshotReader/refresh()`` on every event, and a widget timeline for each new
/// snapshot; reports the generation once the entry is ready.
enum PackageReader {
    static func run(container: String, group: String, catalogPath: String, index: Int) async throws -> Never {
        let maker = try WidgetEntryMaker(catalogPath: catalogPath)
        let reader = SnapshotReader(suiteName: group, container: container)
        let directory = container + "/Library/Preferences"
        for try await event in DirectoryWatch(directory: directory, names: [group + ".plist"]) {
            if event == .armed { ReportPipe.emit(reader: index, generation: 0, nanoseconds: 0) }
            if case .updated(let snapshot) = reader.refresh() {
                maker.makeEntry(snapshot)
                ReportPipe.emit(reader: index, generation: snapshot.generation, nanoseconds: MonotonicClock.now())
            }
        }
        exit(0)
    }
}
