import Glibc

/// What `stat(2)` says about a file, in Swift types. Times are nanoseconds since 1970.
package struct FileStatus: Hashable, Sendable {
    /// The kind of file, from the `S_IFMT` bits.
    package enum FileType: String, Hashable, Sendable {
        case regular, directory, symlink, fifo, socket, characterDevice, blockDevice, other
    }

    package var device: UInt64
    package var inode: UInt64
    /// Size in bytes.
    package var size: Int64
    /// The full `st_mode`, type bits included; see ``permissions``.
    package var mode: UInt32
    package var type: FileType
    package var userID: UInt32
    package var groupID: UInt32
    /// How many names the file has (`st_nlink`); 0 for a removed directory still held open.
    package var linkCount: UInt64
    /// Last modification of the contents, in nanoseconds since 1970.
    package var modificationTimeNanoseconds: Int64
    /// Last change of the inode (contents, mode, owner, links), in nanoseconds since 1970.
    package var changeTimeNanoseconds: Int64

    /// The permission bits (`mode & 0o7777`).
    package var permissions: UInt32 { mode & 0o7777 }
    /// Whether anyone may write the file (`S_IWOTH`).
    package var isWorldWritable: Bool { mode & 0o002 != 0 }

    package init(_ raw: stat) {
        device = UInt64(raw.st_dev)
        inode = UInt64(raw.st_ino)
        size = Int64(raw.st_size)
        mode = UInt32(raw.st_mode)
        userID = UInt32(raw.st_uid)
        groupID = UInt32(raw.st_gid)
        linkCount = UInt64(raw.st_nlink)
        modificationTimeNanoseconds = Int64(raw.st_mtim.tv_sec) * 1_000_000_000 + Int64(raw.st_mtim.tv_nsec)
        changeTimeNanoseconds = Int64(raw.st_ctim.tv_sec) * 1_000_000_000 + Int64(raw.st_ctim.tv_nsec)
        type = switch UInt32(raw.st_mode) & UInt32(S_IFMT) {
        case UInt32(S_IFREG): .regular
        case UInt32(S_IFDIR): .directory
        case UInt32(S_IFLNK): .symlink
        case UInt32(S_IFIFO): .fifo
        case UInt32(S_IFSOCK): .socket
        case UInt32(S_IFCHR): .characterDevice
        case UInt32(S_IFBLK): .blockDevice
        default: .other
        }
    }
}
