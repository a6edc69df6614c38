import Cryptography
import SystemShims

/// The companion link's pairing key on disk: exactly 32 bytes, a regular file owned by the
/// daemon's user that nobody else may read or write (no group or other permission bits). Both
/// sides of a pair hold the same file; `entitlementctl pair` makes it.
package enum PairingKeyFile {
    /// The key's size in bytes.
    package static let byteCount = 32

    /// The key in `path`, checked before a byte is read.
    /// - Throws: ``BrokerError/badInput(_:)`` (65), one line naming the file, when it is not a
    ///   regular file, not owned by this process's user, readable or writable by group or others,
    ///   or not 32 bytes; ``BrokerError/io(path:operation:errno:)`` when it cannot be opened or read.
    package static func load(path: String) throws(BrokerError) -> SecretBytes {
        let file: FileDescriptor
        do { file = try FileDescriptor.open(path, .readOnly, options: [.closeOnExec, .noFollow, .nonBlocking]) } catch {
            if error.rawValue == Errno.tooManySymbolicLinkLevels.rawValue {
                throw .badInput("\(path): pairing key is a symbolic link; refusing it")
            }
            throw .io(path: path, operation: "open pairing key", errno: error)
        }
        let status: FileStatus
        do { status = try file.fstat() } catch { throw .io(path: path, operation: "stat pairing key", errno: error) }
        guard status.type == .regular else { throw .badInput("\(path): pairing key is not a regular file") }
        guard status.userID == ProcessIdentity.effectiveUserID else {
            throw .badInput("\(path): pairing key is owned by uid \(status.userID), not by the daemon's user (uid \(ProcessIdentity.effectiveUserID))")
        }
        guard status.permissions & 0o077 == 0 else {
            throw .badInput(
                "\(path): pairing key is readable or writable by group or others (mode \(String(status.permissions, radix: 8))); chmod 600 it")
        }
        guard status.size == byteCount else { throw .badInput("\(path): pairing key is \(status.size) bytes, not \(byteCount)") }
        var bytes: [UInt8]
        do { bytes = try file.readAll(limit: byteCount + 1) } catch {
            guard case .system(let errno) = error else { throw .badInput("\(path): pairing key is longer than \(byteCount) bytes") }
            throw .io(path: path, operation: "read pairing key", errno: errno)
        }
        guard bytes.count == byteCount else { throw .badInput("\(path): pairing key is \(bytes.count) bytes, not \(byteCount)") }
        return SecretBytes(taking: &bytes)
    }

    /// Writes a new key of 32 bytes from the kernel's random source to `path`, mode 0600,
    /// durably; never replaces a file already there.
    /// - Throws: ``BrokerError/badInput(_:)`` when `path` exists; ``BrokerError/io(path:operation:errno:)``.
    package static func create(path: String) throws(BrokerError) {
        var key: [UInt8]
        do { key = try RandomBytes.make(count: byteCount) } catch { throw .io(path: path, operation: "getrandom", errno: error) }
        defer { Zeroization.overwrite(&key) }
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(path, .writeOnly, options: [.closeOnExec, .create, .exclusiveCreate, .noFollow], permissions: 0o600)
        } catch .exists {
            throw .badInput("\(path): already exists; refusing to overwrite a pairing key")
        } catch {
            throw .io(path: path, operation: "create pairing key", errno: error)
        }
        do {
            try file.changeMode(0o600)
            try file.writeAll(key)
            try file.fsync()
        } catch {
            try? FileSystem.unlink(path)
            throw .io(path: path, operation: "write pairing key", errno: error)
        }
    }
}
