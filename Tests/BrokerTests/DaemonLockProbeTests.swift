@testable import Broker
import Glibc
import SystemShims
import TestSupport
import Testing

/// `entitlementctl ingest --wait` asks whether a daemon holds the container (`DaemonLock.isHeld`)
/// while it waits, and the daemon watches its lock file's name to stop when the file is removed or
/// replaced. The question must not look like a change to that name: a probe that opened the lock
/// file for writing ended in `IN_CLOSE_WRITE`, which woke the daemon for an extra turn of its loop
/// (a lock check and an inbox scan) just as the purchase it waits for arrived.
@Suite struct DaemonLockProbeTests {
    @Test("Asking whether a daemon holds the lock tells no watcher that the lock file was written")
    func probeIsNoWrite() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/entitlementd.lock"
            let holder = try DaemonLock.acquire(path: path, container: directory)
            defer { withExtendedLifetime(holder) {} }

            let inotify = try FileDescriptor.makeInotify(nonBlocking: false)
            _ = try inotify.addWatch(path: directory, mask: InotifyBits.closeWrite | InotifyBits.create)
            #expect(DaemonLock.isHeld(path: path))
            // A file created after the probe: its event comes after any event the probe caused.
            let sentinel = try FileDescriptor.open(directory + "/sentinel", .writeOnly, options: [.create, .closeOnExec], permissions: 0o600)
            try sentinel.close()

            var names: [String] = []
            try withUnsafeTemporaryAllocation(byteCount: 4096, alignment: InotifyEventHeader.alignment) { buffer throws(Errno) in
                while !names.contains("sentinel") {
                    let count = try inotify.read(into: buffer)
                    var offset = 0
                    while offset + InotifyEventHeader.size <= count {
                        let header = InotifyEventHeader(in: UnsafeRawBufferPointer(buffer), at: offset)
                        let nameStart = offset + InotifyEventHeader.size
                        let bytes = UnsafeRawBufferPointer(rebasing: buffer[nameStart..<(nameStart + header.nameLength)])
                        names.append(String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self))
                        offset = nameStart + header.nameLength
                    }
                }
            }
            #expect(!names.contains("entitlementd.lock"), "events before the sentinel's: \(names)")
        }
    }

    @Test("The probe answers false when nobody holds the lock, and creates no lock file where none is")
    func probeWithoutHolder() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/entitlementd.lock"
            #expect(!DaemonLock.isHeld(path: path))
            #expect((try? fileStatus(atPath: path)) == nil)
            let released = try DaemonLock.acquire(path: path, container: directory)
            try released.unlock()
            #expect(!DaemonLock.isHeld(path: path))
        }
    }
}
