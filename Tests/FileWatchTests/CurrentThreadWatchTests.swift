import FileWatch
import Foundation
import Glibc
import Synchronization
import Testing

/// ``DirectoryWatch/forEachEventOnCurrentThread(_:)``: the same events as the `AsyncSequence`, on a thread
/// of the caller's, ended by the handler.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct CurrentThreadWatchTests {
    @Test func deliversArmedThenChangesOfWatchedNamesOnlyAndStopsWhenTheHandlerSaysSo() async throws {
        try await withTemporaryDirectory { directory in
            try await withThreadWatch(directory: directory, names: ["state.plist", "stop"]) { watch in
                #expect(await watch.log.wait { !$0.isEmpty })
                #expect(watch.log.events.first == .armed, "got: \(watch.log.events)")

                let mark = watch.log.events.count
                try writeFile(directory + "/other", "x")
                try replaceAtomically(directory: directory, name: "state.plist", contents: "1")
                #expect(await watch.log.wait { $0.reports("state.plist", from: mark) }, "got: \(watch.log.events)")
                let reported = watch.log.events.reduce(into: Set<String>()) { $0.formUnion($1.changedNames) }
                #expect(reported == ["state.plist"], "other and temporary names are filtered out")
            }
        }
    }

    @Test func handlerReturningFalseEndsTheCallAtOnce() async throws {
        try await withTemporaryDirectory { directory in
            let calls = Mutex<[FileWatchEvent]>([])
            // On this task's thread: returns only because the handler stops it on the first event.
            try DirectoryWatch(directory: directory, names: nil).forEachEventOnCurrentThread { event in
                calls.withLock { $0.append(event) }
                return false
            }
            #expect(calls.withLock { $0 } == [.armed])
        }
    }

    @Test func removedDirectoryIsReportedAndRearmedWhenRecreated() async throws {
        try await withTemporaryDirectory { root in
            let directory = root + "/Preferences"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
            try await withThreadWatch(directory: directory, names: ["group.plist", "stop"]) { watch in
                #expect(await watch.log.wait { $0.first == .armed })
                try FileManager.default.removeItem(atPath: directory)
                #expect(await watch.log.wait { $0.contains(.directoryRemoved) }, "got: \(watch.log.events)")
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
                #expect(await watch.log.wait { $0.contains(.rearmed) }, "got: \(watch.log.events)")
                let mark = watch.log.events.count
                try replaceAtomically(directory: directory, name: "group.plist", contents: "2")
                #expect(await watch.log.wait { $0.reports("group.plist", from: mark) }, "got: \(watch.log.events)")
            }
        }
    }

    @Test func kernelQueueOverflowWhileTheHandlerIsBusyIsReported() async throws {
        let queueLimit = try inotifyQueueLimit()
        try await withTemporaryDirectory { directory in
            try await withThreadWatch(directory: directory, names: ["x", "stop"], holdOnFirstChange: true) { watch in
                #expect(await watch.log.wait { $0.first == .armed })
                try writeFile(directory + "/x", "1")
                #expect(await watch.log.wait { $0.reports("x") })
                // The handler is now held: new events wait in the kernel queue.
                try overflowKernelQueue(in: directory, queueLimit: queueLimit)
                watch.release.signal()
                #expect(await watch.log.wait { $0.contains(.overflow) }, "got: \(watch.log.events)")
                let mark = watch.log.events.count
                try writeFile(directory + "/x", "2")
                #expect(await watch.log.wait { $0.reports("x", from: mark) }, "after overflow: got \(watch.log.events)")
            }
        }
    }
}

/// A watch running ``DirectoryWatch/forEachEventOnCurrentThread(_:)`` on its own thread, recording events.
final class ThreadWatch: Sendable {
    let log = EventLog()
    /// Lets a handler held by `holdOnFirstChange` go on.
    let release = DispatchSemaphore(value: 0)
    let returned = Mutex(false)
}

/// Runs `body` while a thread watches `directory`; the handler stops on a change of the name `stop`, which
/// is written afterwards (so `names` must include it), and the call must then return.
private func withThreadWatch(
    directory: String, names: Set<String>?, holdOnFirstChange: Bool = false, _ body: (ThreadWatch) async throws -> Void
) async throws {
    let watch = ThreadWatch()
    let thread = Thread { [watch] in
        var held = !holdOnFirstChange
        var failure: FileWatchError?
        do throws(FileWatchError) {
            try DirectoryWatch(directory: directory, names: names).forEachEventOnCurrentThread { event in
                watch.log.append(event)
                if !held, case .changed = event {
                    held = true
                    watch.release.wait()
                }
                return !event.changedNames.contains("stop")
            }
        } catch {
            failure = error
        }
        watch.log.end(failure: failure)
        watch.returned.withLock { $0 = true }
    }
    thread.start()
    defer { watch.release.signal() }
    do {
        try await body(watch)
    } catch {
        try? writeFile(directory + "/stop", "")  // end the watching thread before the directory goes
        throw error
    }
    #expect(watch.log.failure == nil)
    try writeFile(directory + "/stop", "")
    #expect(await eventually { watch.returned.withLock { $0 } }, "the call returns once the handler returns false")
}
