#if ENABLE_MOCKING
import FileWatch
import Foundation
import Glibc
import SystemShims
import Testing

/// Several watches on one inotify instance, read on the owner's thread (what a service loop uses):
/// one instance whatever the number of watches, every event to the watch it concerns.
@Suite struct DirectoryWatchSetTests {
    /// What a set reported, per watch.
    final class Reports {
        var events: [Int: [FileWatchEvent]] = [:]
        var failures: [Int: FileWatchError] = [:]
        func changed(_ index: Int, _ event: FileWatchEvent) { events[index, default: []].append(event) }
        func failed(_ index: Int, _ error: FileWatchError) { failures[index] = error }
    }

    /// Reads `set` until `done` holds or 10 s pass, polling its descriptor as a loop does.
    static func read(_ set: inout DirectoryWatchSet, into reports: Reports, until done: () -> Bool) {
        let deadline = Date().addingTimeInterval(10)
        while !done(), Date() < deadline, let descriptor = set.descriptor {
            guard (try? FileDescriptor.waitForInput(descriptor, nil, timeoutMilliseconds: 100))?.first == true else { continue }
            set.readEvents(reports.changed, failed: reports.failed)
        }
    }

    /// The inotify instances this process holds.
    static var inotifyInstances: Int {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == "anon_inode:inotify" }.count
    }

    @Test("Watches of two directories, and two of one directory (one for arrivals only), each get their own events, on one inotify descriptor")
    func eventsReachTheirWatch() async throws {
        try await withTemporaryDirectory { root in
            let inbox = root + "/inbox", broker = root + "/broker"
            mkdir(inbox, 0o700)
            mkdir(broker, 0o700)
            let watches = [
                DirectoryWatch(directory: inbox, arrivalsOnly: true) { !$0.hasPrefix(".") },
                DirectoryWatch(directory: broker, names: ["lock"]),
                DirectoryWatch(directory: inbox, names: nil),
            ]
            let reports = Reports()
            let descriptorsBefore = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
            var set = try DirectoryWatchSet(watches, reports.changed, failed: reports.failed)
            let descriptorsAfter = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
            // Other suites open descriptors in parallel: at least one, never three or more per watch.
            #expect(descriptorsAfter - descriptorsBefore < watches.count, "one descriptor for \(watches.count) watches")
            #expect(reports.events == [0: [.armed], 1: [.armed], 2: [.armed]])
            reports.events = [:]

            try replaceAtomically(directory: inbox, name: "a.events", contents: "1")
            try writeFile(broker + "/other", "x")
            try writeFile(broker + "/lock", "x")
            Self.read(&set, into: reports) {
                reports.events[0]?.contains(.changed(["a.events"])) == true && reports.events[1]?.contains(.changed(["lock"])) == true
                    && reports.events[2]?.contains { if case .changed(let names) = $0 { names.contains("a.events") } else { false } } == true
            }
            #expect(reports.events[0] == [.changed(["a.events"])], "the arrivals watch skips the temporary name: \(reports.events)")
            #expect(reports.events[1] == [.changed(["lock"])], "the lock watch hears of its name only: \(reports.events)")
            reports.events = [:]

            // A removal reaches the watch that reports removals, not the one for arrivals only.
            unlink(inbox + "/a.events")
            Self.read(&set, into: reports) { reports.events[2] != nil }
            #expect(reports.events[2] == [.changed(["a.events"])])
            #expect(reports.events[0] == nil, "an arrivals-only watch is told of no removal: \(reports.events)")
            #expect(reports.failures.isEmpty)
        }
    }

    @Test("A directory removed and made again is reported to each of its watches, which keep working")
    func removalAndRearm() async throws {
        try await withTemporaryDirectory { root in
            let inbox = root + "/inbox"
            mkdir(inbox, 0o700)
            let reports = Reports()
            var set = try DirectoryWatchSet(
                [DirectoryWatch(directory: inbox, names: ["x"]), DirectoryWatch(directory: inbox, names: nil)], reports.changed, failed: reports.failed)
            reports.events = [:]
            rmdir(inbox)
            Self.read(&set, into: reports) { reports.events[0] == [.directoryRemoved] && reports.events[1] == [.directoryRemoved] }
            mkdir(inbox, 0o700)
            Self.read(&set, into: reports) { reports.events[0]?.last == .rearmed && reports.events[1]?.last == .rearmed }
            #expect(reports.events[0] == [.directoryRemoved, .rearmed] && reports.events[1] == [.directoryRemoved, .rearmed], "\(reports.events)")
            reports.events = [:]
            try writeFile(inbox + "/x", "1")
            Self.read(&set, into: reports) { reports.events[0] != nil && reports.events[1] != nil }
            #expect(reports.events[0] == [.changed(["x"])] && reports.events[1] == [.changed(["x"])], "\(reports.events)")
        }
    }

    @Test("inotify_init1 failing (EMFILE) is reported as today: createInstance, the limit to raise, the path")
    func instanceLimit() async throws {
        try await withTemporaryDirectory { root in
            let faults = SyscallFaults()
            faults.inject(.fail(.tooManyOpenFiles), into: .inotifyInit)
            let outcome = faults.withFaults {
                Result { () throws(FileWatchError) in _ = try DirectoryWatchSet([DirectoryWatch(directory: root, names: nil)], { _, _ in }, failed: { _, _ in }) }
            }
            guard case .failure(let error) = outcome else {
                Issue.record("the set was made despite EMFILE")
                return
            }
            #expect(error.operation == .createInstance && error.errno == .tooManyOpenFiles && error.path == root)
            #expect(error.description.contains("/proc/sys/fs/inotify/max_user_instances"), "\(error)")
        }
    }

    @Test("A watch that cannot be placed (ENOSPC: the watch limit) fails alone; the others keep working")
    func watchLimitFailsOneWatch() async throws {
        try await withTemporaryDirectory { root in
            let first = root + "/first", second = root + "/second"
            mkdir(first, 0o700)
            mkdir(second, 0o700)
            let reports = Reports()
            let faults = SyscallFaults()
            faults.inject(.fail(.noSpace), into: .inotifyAddWatch, after: 1)
            // The one fault is spent on the second watch; the rest runs as usual.
            try faults.withFaults { () throws(FileWatchError) in
                var set = try DirectoryWatchSet(
                    [DirectoryWatch(directory: first, names: nil), DirectoryWatch(directory: second, names: nil)], reports.changed, failed: reports.failed)
                #expect(reports.failures[1]?.errno == .noSpace && reports.failures[1]?.path == second, "\(reports.failures)")
                #expect(reports.events == [0: [.armed]])
                reports.events = [:]
                try? writeFile(first + "/x", "1")
                Self.read(&set, into: reports) { reports.events[0] != nil }
                #expect(reports.events == [0: [.changed(["x"])]])
            }
        }
    }
}
#endif
