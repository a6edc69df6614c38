import Foundation

/// What `/proc/<pid>/stat` says of a process: its `comm`, parent, state and start time (in
/// clock ticks since boot, which tells a process from a later one with the same ID).
struct ProcessStat: Equatable, Sendable {
    var name: String
    var parent: Int32
    var state: Substring
    var startTime: Substring

    init?(pid: Int32) {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
        else { return nil }
        // pid (comm) state ppid … starttime (field 22): comm may hold spaces and parentheses,
        // so the fields are counted from the last ')'.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let parent = Int32(fields[1]) else { return nil }
        (name, self.parent, state, startTime) = (String(stat[stat.index(after: open)..<close]), parent, fields[0], fields[19])
    }
}
