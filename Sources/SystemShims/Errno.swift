import Glibc

/// A POSIX error number, as a typed `Error`.
///
/// `description` is the C library's `strerror` text followed by the symbolic name when this type
/// knows it (`No such file or directory (ENOENT)`). Match a specific number with `catch
/// Errno.noSuchFileOrDirectory` (see the `~=` overload) or by comparing values.
public struct Errno: Error, Hashable, Sendable, RawRepresentable, CustomStringConvertible {
    public var rawValue: CInt

    public init(rawValue: CInt) { self.rawValue = rawValue }

    /// The calling thread's current `errno`. Read it immediately after the failing call.
    package static var current: Errno { Errno(rawValue: errno) }

    public static let notPermitted = Errno(rawValue: EPERM)
    public static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    public static let interrupted = Errno(rawValue: EINTR)
    public static let ioError = Errno(rawValue: EIO)
    public static let badFileDescriptor = Errno(rawValue: EBADF)
    public static let wouldBlock = Errno(rawValue: EWOULDBLOCK)
    public static let permissionDenied = Errno(rawValue: EACCES)
    public static let exists = Errno(rawValue: EEXIST)
    public static let notDirectory = Errno(rawValue: ENOTDIR)
    public static let isDirectory = Errno(rawValue: EISDIR)
    public static let invalidArgument = Errno(rawValue: EINVAL)
    public static let tooManyOpenFiles = Errno(rawValue: EMFILE)
    public static let fileTooLarge = Errno(rawValue: EFBIG)
    public static let noSpace = Errno(rawValue: ENOSPC)
    public static let readOnlyFileSystem = Errno(rawValue: EROFS)
    public static let tooManySymbolicLinkLevels = Errno(rawValue: ELOOP)
    public static let notEmpty = Errno(rawValue: ENOTEMPTY)
    public static let crossDevice = Errno(rawValue: EXDEV)
    public static let noDevice = Errno(rawValue: ENXIO)
    public static let notImplemented = Errno(rawValue: ENOSYS)
    public static let noSuchProcess = Errno(rawValue: ESRCH)
    public static let brokenPipe = Errno(rawValue: EPIPE)
    public static let noChildProcess = Errno(rawValue: ECHILD)

    /// The symbolic name of the common numbers (`ENOENT`), or `nil`.
    public var name: String? {
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
        case ENFILE: "ENFILE"
        case ENOMEM: "ENOMEM"
        case EFBIG: "EFBIG"
        case ENOSPC: "ENOSPC"
        case EROFS: "EROFS"
        case ELOOP: "ELOOP"
        case ENOTEMPTY: "ENOTEMPTY"
        case EXDEV: "EXDEV"
        case ENXIO: "ENXIO"
        case ENOSYS: "ENOSYS"
        case ESRCH: "ESRCH"
        case EPIPE: "EPIPE"
        case ECHILD: "ECHILD"
        default: nil
        }
    }

    /// Whether the call failed for want of a resource of the process or the system (descriptors,
    /// memory), not because of the file it named: the same call may succeed later, and says
    /// nothing about that file.
    public var isResourceShortage: Bool {
        [EMFILE, ENFILE, ENOMEM, EAGAIN, ENOBUFS, EINTR].contains(rawValue)
    }

    /// The C library's text for this number alone (`strerror`): `No such file or directory`.
    public var message: String {
        strerror(rawValue).map { String(cString: $0) } ?? "error \(rawValue)"
    }

    public var description: String {
        let text = message
        return name.map { "\(text) (\($0))" } ?? "\(text) (errno \(rawValue))"
    }

    /// Lets `catch Errno.wouldBlock` match a thrown `Errno`.
    public static func ~= (pattern: Errno, value: any Error) -> Bool {
        (value as? Errno) == pattern
    }
}
