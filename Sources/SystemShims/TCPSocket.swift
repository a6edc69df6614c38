import Glibc

/// Non-blocking IPv4 TCP sockets, for the companion link: a listener, a connection being made
/// and the bytes that cross. Every descriptor is made `SOCK_NONBLOCK | SOCK_CLOEXEC`, so no call
/// here ever waits (``pollEntries(_:timeoutMilliseconds:)`` does), and sending never raises
/// `SIGPIPE` (`MSG_NOSIGNAL`).
package enum TCPSocket {
    /// An IPv4 address and port.
    package struct Address: Sendable, Equatable, CustomStringConvertible {
        /// The address in network byte order, as `in_addr.s_addr` holds it.
        package var host: UInt32
        package var port: UInt16

        /// `127.0.0.1:port`.
        package static func loopback(port: UInt16) -> Address { Address(host: UInt32(0x7F00_0001).bigEndian, port: port) }

        /// Parses `HOST:PORT`, or `PORT` alone when `defaultHost` is given. HOST is a dotted IPv4
        /// address or `localhost` (127.0.0.1); no name is looked up. Nil when it is neither.
        package init?(parsing text: String, defaultHost: String? = nil) {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            let hostText: String
            let portText: Substring
            switch parts.count {
            case 1:
                guard let defaultHost else { return nil }
                hostText = defaultHost
                portText = parts[0]
            case 2:
                hostText = String(parts[0])
                portText = parts[1]
            default:
                return nil
            }
            guard let port = UInt16(portText), !portText.hasPrefix("+") else { return nil }
            var address = in_addr()
            let name = hostText == "localhost" ? "127.0.0.1" : hostText
            guard inet_pton(AF_INET, name, &address) == 1 else { return nil }
            self.init(host: address.s_addr, port: port)
        }

        package init(host: UInt32, port: UInt16) {
            self.host = host
            self.port = port
        }

        package var description: String {
            let bytes = withUnsafeBytes(of: host) { Array($0) }
            return bytes.map(String.init).joined(separator: ".") + ":\(port)"
        }

        fileprivate var socketAddress: sockaddr_in {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = host
            return address
        }

        fileprivate init(_ address: sockaddr_in) {
            self.init(host: address.sin_addr.s_addr, port: UInt16(bigEndian: address.sin_port))
        }
    }

    private static func makeSocket() throws(Errno) -> FileDescriptor {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        return FileDescriptor(adopting: try valueOrErrno { system_socket(AF_INET, type, 0) })
    }

    private static func withSocketAddress<R>(_ address: Address, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        var socketAddress = address.socketAddress
        return withUnsafePointer(to: &socketAddress) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    private static func setOption(_ socket: borrowing FileDescriptor, level: CInt, _ name: CInt, _ value: CInt) throws(Errno) {
        var value = value
        let descriptor = socket.rawValue
        _ = try valueOrErrno { system_setsockopt(descriptor, level, name, &value, socklen_t(MemoryLayout<CInt>.size)) }
    }

    /// A listening socket bound to `address` (`SO_REUSEADDR`, so a restarted daemon binds again
    /// at once). Port 0 binds a free port: ``localAddress(of:)`` names it.
    package static func listen(on address: Address, backlog: CInt = 64) throws(Errno) -> FileDescriptor {
        let socket = try makeSocket()
        try setOption(socket, level: SOL_SOCKET, SO_REUSEADDR, 1)
        let descriptor = socket.rawValue
        _ = try valueOrErrno { withSocketAddress(address) { system_bind(descriptor, $0, $1) } }
        _ = try valueOrErrno { system_listen(descriptor, backlog) }
        return socket
    }

    /// The address `socket` is bound to (`getsockname(2)`).
    package static func localAddress(of socket: borrowing FileDescriptor) throws(Errno) -> Address {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let descriptor = socket.rawValue
        _ = try withUnsafeMutablePointer(to: &address) { pointer throws(Errno) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw throws(Errno) in
                try valueOrErrno { system_getsockname(descriptor, raw, &length) }
            }
        }
        return Address(address)
    }

    /// A connection accepted on `listener` (its peer's address in `peer`); nil when none is
    /// waiting (`EAGAIN`), or when the one waiting was reset before it was taken (`ECONNABORTED`).
    package static func accept(_ listener: borrowing FileDescriptor, peer: inout Address) throws(Errno) -> FileDescriptor? {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let descriptor = listener.rawValue
        let flags = Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        do {
            let accepted = try withUnsafeMutablePointer(to: &address) { pointer throws(Errno) in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw throws(Errno) in
                    try valueOrErrno { system_accept4(descriptor, raw, &length, flags) }
                }
            }
            let connection = FileDescriptor(adopting: accepted)
            try? setOption(connection, level: CInt(IPPROTO_TCP), TCP_NODELAY, 1)
            peer = Address(address)
            return connection
        } catch where error == .wouldBlock || error.rawValue == ECONNABORTED {
            return nil
        }
    }

    /// Starts connecting to `address`; the connection is up when the descriptor polls writable
    /// and ``pendingError(of:)`` is nil (a loopback connect may be up at once).
    package static func connect(to address: Address) throws(Errno) -> FileDescriptor {
        let socket = try makeSocket()
        try? setOption(socket, level: CInt(IPPROTO_TCP), TCP_NODELAY, 1)
        let descriptor = socket.rawValue
        do {
            _ = try valueOrErrno(retryOnInterrupt: false) { withSocketAddress(address) { system_connect(descriptor, $0, $1) } }
        } catch where error.rawValue == EINPROGRESS || error == .interrupted {
            // Completes in the background; EINTR does not cancel it either.
        }
        return socket
    }

    /// The error that ended a connection attempt (`SO_ERROR`), nil when there is none.
    package static func pendingError(of socket: borrowing FileDescriptor) -> Errno? {
        var value: CInt = 0
        var length = socklen_t(MemoryLayout<CInt>.size)
        guard getsockopt(socket.rawValue, SOL_SOCKET, SO_ERROR, &value, &length) == 0 else { return Errno.current }
        return value == 0 ? nil : Errno(rawValue: value)
    }

    /// Sends what of `bytes` the kernel takes now; 0 when its buffer is full (`EAGAIN`).
    package static func send(_ socket: borrowing FileDescriptor, _ bytes: UnsafeRawBufferPointer) throws(Errno) -> Int {
        guard !bytes.isEmpty else { return 0 }
        let descriptor = socket.rawValue
        do {
            return try valueOrErrno { system_send(descriptor, bytes.baseAddress, bytes.count, CInt(MSG_NOSIGNAL) | CInt(MSG_DONTWAIT)) }
        } catch .wouldBlock {
            return 0
        }
    }

    /// Receives at most `buffer.count` bytes: how many, 0 when the peer closed its side, nil when
    /// nothing is waiting (`EAGAIN`).
    package static func receive(_ socket: borrowing FileDescriptor, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int? {
        let descriptor = socket.rawValue
        do {
            return try valueOrErrno { system_recv(descriptor, buffer.baseAddress, buffer.count, CInt(MSG_DONTWAIT)) }
        } catch .wouldBlock {
            return nil
        }
    }
}
