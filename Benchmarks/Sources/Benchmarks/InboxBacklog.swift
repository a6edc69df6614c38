import Foundation

/// The files a daemon has still to drain from a container's inbox, as an observer sees them:
/// every name in the inbox directory but a writer's temporary file (a leading dot).
enum InboxBacklog {
    static func count(_ directory: String) throws(BenchmarkError) -> Int {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: directory) } catch {
            if !FileManager.default.fileExists(atPath: directory) { return 0 }
            throw BenchmarkError("\(directory): \(error)")
        }
        return names.filter { !$0.hasPrefix(".") }.count
    }
}
