#if ENABLE_MOCKING
import FileWatch
import Foundation
import SystemShims
import Testing

/// The watcher's reads of the inotify descriptor, failed on purpose through SystemShims' seam
/// (debug builds only). The reader thread inherits the test task's faults.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct WatchReadFaultTests {
    @Test("A read of the inotify descriptor interrupted by a signal (EINTR) is retried and the change still arrives")
    func interruptedReadIsRetried() async throws {
        try await withTemporaryDirectory { directory in
            let faults = SyscallFaults()
            faults.inject(.fail(.interrupted), into: .read, times: 3)
            try await faults.withFaults {
                var iterator = DirectoryWatch(directory: directory, names: ["state.plist"]).makeAsyncIterator()
                #expect(try await iterator.next() == .armed)
                try writeFile(directory + "/state.plist", "1")
                let event = try await iterator.next()
                #expect(event == .changed(["state.plist"]), "got: \(String(describing: event))")
            }
            #expect(faults.count(of: .read) >= 4, "three interrupted reads, then the one that succeeded: \(faults.trace)")
        }
    }

    @Test("A failing read of the inotify descriptor (EIO) ends the sequence with that errno, the path and the operation")
    func failedReadEndsTheWatchWithItsErrno() async throws {
        try await withTemporaryDirectory { directory in
            let faults = SyscallFaults()
            faults.inject(.fail(.ioError), into: .read, times: nil)
            try await faults.withFaults {
                var iterator = DirectoryWatch(directory: directory, names: ["state.plist"]).makeAsyncIterator()
                #expect(try await iterator.next() == .armed)
                try writeFile(directory + "/state.plist", "1")
                let error = await #expect(throws: FileWatchError.self) { _ = try await iterator.next() }
                #expect(error?.errno == .ioError)
                #expect(error?.operation == .read)
                #expect(error?.path == directory)
                #expect(error?.description == "read \(directory): Input/output error (errno \(Errno.ioError.rawValue))")
                #expect(try await iterator.next() == nil, "the sequence has ended")
            }
        }
    }
}
#endif
