import Foundation

/// The committed hostile-input corpus under `Tests/Corpus` (outside every target), found from
/// this file's path. `generate.py` there rebuilds it.
enum Corpus {
    static let root: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Corpus").path

    /// Every regular file directly in `folder` (`shared-files`, `events`, `catalogs`), sorted by
    /// name, as names relative to that folder.
    static func files(_ folder: String, extension suffix: String? = nil) -> [String] {
        let directory = root + "/" + folder
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { name in
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: directory + "/" + name, isDirectory: &isDirectory)
            return exists && !isDirectory.boolValue && !name.hasPrefix(".") && (suffix.map { name.hasSuffix($0) } ?? true)
        }.sorted()
    }

    static func path(_ folder: String, _ name: String) -> String { root + "/" + folder + "/" + name }

    static var sharedFiles: [String] { files("shared-files") }
    static var eventFiles: [String] { files("events") }
    static var catalogFiles: [String] { files("catalogs", extension: ".json") }

    /// Exit codes of the contract; anything else (a signal number, 1 from a catch-all) is a crash.
    static let contractCodes: Set<Int32> = [0, 1, 64, 65, 69, 75]
}
