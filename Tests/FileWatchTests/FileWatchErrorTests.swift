import FileWatch
import SystemShims
import Glibc
import Testing

@Suite struct FileWatchErrorTests {
    @Test(arguments: [
        (FileWatchError.Operation.addWatch, ENOSPC, "/proc/sys/fs/inotify/max_user_watches"),
        (.createInstance, EMFILE, "/proc/sys/fs/inotify/max_user_instances"),
    ])
    func limitErrorsNameTheKernelLimit(operation: FileWatchError.Operation, code: Int32, limit: String) {
        let error = FileWatchError(errno: Errno(rawValue: code), path: "/tmp/x", operation: operation)
        #expect(error.description.contains(limit), "\(error)")
        #expect(error.description.contains("/tmp/x"))
        #expect(error.description.contains(operation.rawValue))
        #expect(error.description.contains("errno \(code)"))
    }

    @Test func otherErrorsNameNoLimit() {
        let error = FileWatchError(errno: Errno(rawValue: EACCES), path: "/root/secret", operation: .addWatch)
        #expect(!error.description.contains("/proc/sys"), "\(error)")
        #expect(error.description.contains("Permission denied"))
    }
}
