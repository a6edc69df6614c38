import Glibc

/// A POSIX error number, as a typed `Error`.
///
/// `description` is the C library's `strerror` text followed by the symbolic name when this type
/// knows it (`No such file or directory (ENOENT)`). Match a specific number with `catch
/// Errno.noSuchFileOrDirectory` (see the `~=` overload) or by comparing values.
package struct Errno: Error, Hashable, Sendable, RawRepresentable, CustomStringConvertible {
    package var rawValue: CInt

    package init(rawValue: CInt) { self.rawValue = rawValue }

    /// The calling thread's current `errno`. Read it immediately after the failing call.
    package static var current: Errno { Errno(rawValue: errno) }

    package static let notPermitted = Errno(rawValue: EPERM)
    package static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    package static let interrupted = Errno(rawValue: EINTR)
    package static let ioError = Errno(rawValue: EIO)
    package static let badFileDescriptor = Errno(rawValue: EBADF)
    package static let wouldBlock = Errno(rawValue: EWOULDBLOCK)
    package static let permissionDenied = Errno(rawValue: EACCES)
    package static let exists = Errno(rawValue: EEXIST)
    package static let notDirectory = Errno(rawValue: ENOTDIR)
    package static let isDirectory = Errno(rawValue: EISDIR)
    package static let invalidArgument = Errno(rawValue: EINVAL)
    package static let tooManyOpenFiles = Errno(rawValue: EMFILE)
    package static let fileTooLarge = Errno(rawValue: EFBIG)
    package static let noSpace = Errno(rawValue: ENOSPC)
    package static let readOnlyFileSystem = Errno(rawValue: EROFS)
    package static let tooManySymbolicLinkLevels = Errno(rawValue: ELOOP)
    package static let notEmpty = Errno(rawValue: ENOTEMPTY)
    package static let crossDevice = Errno(rawValue: EXDEV)
    package static let noDevice = Errno(rawValue: ENXIO)

    /// The symbolic name of the common numbers (`ENOENT`), or `nil`.
    package var name: String? {
        switch rawValue {
        case EPERM: "EPERM"
        case ENOENT: "ENOENT"
        case EINTR: "EINTR"
        case EIO: "EIO"
        case EBADF: "EBADF"
        case EWOULDBLOCK: "EWOULDBLOCK"
        case EACCES: "EACCES"
        case EEXIST: "EEXIST"
        case ENOTDIR: "ENOTDIR"
        case EISDIR: "EISDIR"
        case EINVAL: "EINVAL"
        case EMFILE: "EMFILE"
        case EFBIG: "EFBIG"
        case ENOSPC: "ENOSPC"
        case EROFS: "EROFS"
        case ELOOP: "ELOOP"
        case ENOTEMPTY: "ENOTEMPTY"
        case EXDEV: "EXDEV"
        case ENXIO: "ENXIO"
        default: nil
        }
    }

    package var description: String {
        let text = strerror(rawValue).map { String(cString: $0) } ?? "error \(rawValue)"
        return name.map { "\(text) (\($0))" } ?? "\(text) (errno \(rawValue))"
    }

    /// Lets `catch Errno.wouldBlock` match a thrown `Errno`.
    package static func ~= (pattern: Errno, value: any Error) -> Bool {
        (value as? Errno) == pattern
    }
}
