import Glibc

/// Sending one datagram to an `AF_UNIX` socket address, for protocols such as systemd's notify.
package enum UnixDatagramSocket {
    /// Why ``send(_:to:)`` did not send.
    package enum Failure: Error, Sendable, CustomStringConvertible {
        /// The address does not fit `sockaddr_un` (at most `capacity - 1` bytes).
        case addressTooLong(capacity: Int)
        /// `socket(2)` failed.
        case socket(Errno)
        /// `sendto(2)` failed.
        case send(Errno)
        /// The kernel took fewer bytes than the datagram held.
        case shortSend

        package var description: String {
            switch self {
            case .addressTooLong(let capacity): "path longer than \(capacity - 1) bytes"
            case .socket(let errno): "socket: \(errno.message)"
            case .send(let errno): "sendto: \(errno.message)"
            case .shortSend: "sendto: short send"
            }
        }
    }

    /// Sends `payload` as one datagram from a new socket (`SOCK_DGRAM | SOCK_CLOEXEC`, closed
    /// before returning) to `path`; a path starting with `@` is in the abstract namespace.
    /// `EINTR` is retried; `SIGPIPE` is never raised (`MSG_NOSIGNAL`).
    package static func send(_ payload: [UInt8], to path: String) throws(Failure) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(path.utf8)
        if pathBytes.first == UInt8(ascii: "@") { pathBytes[0] = 0 }  // abstract namespace
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !pathBytes.isEmpty, pathBytes.count < capacity else { throw .addressTooLong(capacity: capacity) }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in pathBytes.enumerated() { buffer[index] = byte }
        }
        // An abstract address is exactly its bytes; a path one is NUL-terminated.
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + pathBytes.count + (pathBytes[0] == 0 ? 0 : 1))

        let raw = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard raw >= 0 else { throw .socket(Errno.current) }
        let socket = FileDescriptor(adopting: raw)
        let sent: Int
        do {
            sent = try valueOrErrno {
                withUnsafePointer(to: &address) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                        sendto(socket.rawValue, payload, payload.count, Int32(MSG_NOSIGNAL), socketAddress, length)
                    }
                }
            }
        } catch {
            throw .send(error)
        }
        guard sent == payload.count else { throw .shortSend }
    }
}
