import EntitlementDefaults
import SystemShims

/// The single-writer lock of a container (the caller keeps the returned `FileLock` alive and unlocks it on exit): an exclusive `flock` on
/// `Library/Broker/entitlementd.lock`, held for the daemon's lifetime, with the holder's pid
/// written into the file for the error message of a second instance.
package enum DaemonLock {

    /// Takes the lock without blocking (retrying for up to 0.5 s to ride out a concurrent probe).
    /// Throws ``BrokerError/busy(_:)`` naming the container and the holder's pid.
    static func acquire(path: String, container: String) throws(BrokerError) -> FileLock {
        let directory = FileSystem.directoryAndName(of: path).directory
        do { try FileSystem.makeDirectories(path: directory, mode: ContainerLayout.directoryMode) } catch {
            throw .io(path: directory, operation: "create directory", errno: error)
        }
        let lock: FileLock
        do { lock = try FileLock(path: path) } catch { throw .io(path: path, operation: "open lock", errno: error) }
        let deadline = Clocks.monotonicNanoseconds + 500_000_000
        while true {
            let acquired: Bool
            do { acquired = try lock.tryLock(.exclusive) } catch { throw .io(path: path, operation: "flock", errno: error) }
            if acquired { break }
            if Clocks.monotonicNanoseconds > deadline {
                let holder = holderText(path)?.split(whereSeparator: \.isWhitespace).first.map(String.init)
                throw .busy("another entitlementd (pid \(holder ?? "unknown")) holds \(container)")
            }
            Clocks.sleep(nanoseconds: 20_000_000)
        }
        try? lock.replaceContents(with: Array("\(ProcessIdentity.processID)\n".utf8))
        return lock
    }

    /// What the lock file at `path` says (the holder's pid), or `nil` when it cannot be read.
    private static func holderText(_ path: String) -> String? {
        guard let file = try? FileDescriptor.open(path, .readOnly, options: [.noFollow, .nonBlocking, .closeOnExec]),
            let bytes = try? file.readAll(limit: 4096)
        else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `lock` (taken by ``acquire(path:container:)`` on `path`) still makes this process
    /// the single writer of its container: only while `path` names the very file locked. Once
    /// the file is removed (the container deleted or moved away) or replaced, a second daemon
    /// would lock a fresh file at the same path, so the holder must stop.
    /// - Returns: `nil` while the lock holds, else ``BrokerError/lockLost(_:)`` naming the path
    ///   and what happened to it.
    static func loss(of lock: FileLock, path: String, container: String) -> BrokerError? {
        let held: FileStatus
        do { held = try lock.status() } catch { return .lockLost("\(path): fstat of the held lock failed: \(error); stopping") }
        let what: String
        do {
            let named = try fileStatus(atPath: path, followSymlinks: false)
            if named.device == held.device, named.inode == held.inode { return nil }
            what = "was replaced by another file"
        } catch {
            what = error == .noSuchFileOrDirectory || error == .notDirectory
                ? "was removed (is \(container) deleted or moved?)" : "cannot be checked: \(error)"
        }
        return .lockLost("\(path): the lock file this daemon holds \(what); stopping so that one writer serves \(container)")
    }

    /// Whether a daemon currently holds the lock at `path` (probes with a shared, non-blocking
    /// flock on a read-only open): no lock file means no daemon, and the probe neither creates
    /// one nor, being no write, wakes the daemon's watch of the file (`ingest --wait` asks while
    /// the daemon works on what it queued).
    package static func isHeld(path: String) -> Bool {
        guard let lock = try? FileLock(probing: path) else { return false }
        guard let acquired = try? lock.tryLock(.shared) else { return false }
        if acquired { try? lock.unlock() }
        return !acquired
    }
}
