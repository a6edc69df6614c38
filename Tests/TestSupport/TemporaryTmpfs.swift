import Foundation

/// Whether this process runs as root (mounting a tmpfs, for one, needs it).
public var isRoot: Bool { geteuid() == 0 }

/// Runs `body` with the path of a fresh tmpfs of `kibibytes` KiB (mode 0700), mounted on a new
/// directory inside `parent`, and unmounts it afterwards on every path, even when `body` throws
/// (lazily, if a process still has a file open on it). Needs root; mounts nothing outside
/// `parent`.
///
/// - Throws: ``TemporaryDirectoryError`` when the mount point cannot be made or mounted.
public func withTmpfs<T>(
    in parent: String, kibibytes: Int, _ body: (String) async throws -> T
) async throws -> T {
    let mountPoint = parent + "/tmpfs"
    try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
    guard mount("none", mountPoint, "tmpfs", 0, "size=\(kibibytes)k,mode=0700") == 0 else {
        let code = errno
        try? FileManager.default.removeItem(atPath: mountPoint)
        throw TemporaryDirectoryError(description: "mount tmpfs on \(mountPoint): \(String(cString: strerror(code)))")
    }
    defer {
        if umount2(mountPoint, 0) != 0 { _ = umount2(mountPoint, Int32(MNT_DETACH)) }
        try? FileManager.default.removeItem(atPath: mountPoint)
    }
    return try await body(mountPoint)
}

/// Fills the file system holding `directory` with a file named `name` until it is full, then
/// gives back `pages` pages of `pageSize` bytes, so the next writes of at most that much fit and
/// anything more fails with ENOSPC. Returns the filler's path; removing it frees the space.
public func fillFileSystem(in directory: String, name: String = "filler", leavingPages pages: Int, pageSize: Int = 4096) throws -> String {
    let path = directory + "/" + name
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw TemporaryDirectoryError(description: "\(path): open: \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    let chunk = [UInt8](repeating: 0x2E, count: pageSize)
    var size = 0
    while true {
        let written = chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if written < 0 {
            if errno == EINTR { continue }
            guard errno == ENOSPC else { throw TemporaryDirectoryError(description: "\(path): write: \(String(cString: strerror(errno)))") }
            break
        }
        size += written
        if written < pageSize { break }
    }
    let kept = (size / pageSize - pages) * pageSize
    guard kept >= 0, ftruncate(fd, off_t(kept)) == 0 else {
        throw TemporaryDirectoryError(description: "\(path): cannot give back \(pages) pages of \(size) bytes")
    }
    return path
}

/// Remounts the tmpfs mounted at `mountPoint` (by ``withTmpfs(in:kibibytes:_:)``, of `kibibytes`
/// KiB) read-only or read-write again. Going read-only fails (`EBUSY`) while a file on it is
/// open for writing. Needs root.
public func remountTmpfs(_ mountPoint: String, kibibytes: Int, readOnly: Bool) throws {
    let flags = UInt(MS_REMOUNT) | (readOnly ? UInt(MS_RDONLY) : 0)
    guard mount("none", mountPoint, "tmpfs", flags, "size=\(kibibytes)k,mode=0700") == 0 else {
        throw TemporaryDirectoryError(description: "remount \(mountPoint) \(readOnly ? "ro" : "rw"): \(String(cString: strerror(errno)))")
    }
}
