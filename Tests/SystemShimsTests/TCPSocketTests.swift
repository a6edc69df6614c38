import Glibc
import SystemShims
import Testing

/// The companion link's sockets: non-blocking loopback TCP (listen, connect, accept, send,
/// receive) and the kernel's random bytes, each through the fault seam.
@Suite("TCP sockets and random bytes", .timeLimit(.minutes(1)))
struct TCPSocketTests {
    /// Waits (poll, 10 s at most) until `socket` is ready for `events`.
    static func wait(_ socket: borrowing FileDescriptor, for events: Int16) throws -> Bool {
        var entry = pollfd(fd: socket.rawValue, events: events, revents: 0)
        try withUnsafeMutablePointer(to: &entry) { pointer in
            try pollEntries(UnsafeMutableBufferPointer(start: pointer, count: 1), timeoutMilliseconds: 10_000)
        }
        return entry.revents != 0
    }

    struct Connected: ~Copyable {
        var listener: FileDescriptor
        var client: FileDescriptor
        var server: FileDescriptor
    }

    /// A listener on a free loopback port, a connection to it and the accepted end.
    static func connectedPair() throws -> Connected {
        let listener = try TCPSocket.listen(on: .loopback(port: 0))
        let address = try TCPSocket.localAddress(of: listener)
        #expect(address.description.hasPrefix("127.0.0.1:"))
        let client = try TCPSocket.connect(to: address)
        #expect(try wait(listener, for: Int16(POLLIN)))
        var peer = TCPSocket.Address(host: 0, port: 0)
        guard let accepted = try TCPSocket.accept(listener, peer: &peer) else { throw Errno.wouldBlock }
        #expect(peer.description.hasPrefix("127.0.0.1:"))
        #expect(try wait(client, for: Int16(POLLOUT)))
        #expect(TCPSocket.pendingError(of: client) == nil)
        return Connected(listener: listener, client: client, server: accepted)
    }

    @Test("Addresses parse as HOST:PORT or PORT with a default host; names are not looked up")
    func addresses() {
        #expect(TCPSocket.Address(parsing: "127.0.0.1:8443")?.description == "127.0.0.1:8443")
        #expect(TCPSocket.Address(parsing: "localhost:1")?.description == "127.0.0.1:1")
        #expect(TCPSocket.Address(parsing: "9000", defaultHost: "0.0.0.0")?.description == "0.0.0.0:9000")
        for bad in ["9000", "host.example:1", "127.0.0.1:", "127.0.0.1:65536", "1.2.3.4:5:6", "127.0.0.1:+5", ":80"] {
            #expect(TCPSocket.Address(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test("Bytes cross a loopback connection both ways; a closed peer reads as 0; nothing waiting is nil")
    func roundTrip() throws {
        let pair = try Self.connectedPair()
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(try buffer.withUnsafeMutableBytes { try TCPSocket.receive(pair.server, into: $0) } == nil)
        #expect(try [UInt8]([1, 2, 3]).withUnsafeBytes { try TCPSocket.send(pair.client, $0) } == 3)
        #expect(try Self.wait(pair.server, for: Int16(POLLIN)))
        #expect(try buffer.withUnsafeMutableBytes { try TCPSocket.receive(pair.server, into: $0) } == 3)
        #expect(buffer.prefix(3) == [1, 2, 3])
        shutdown(pair.client.rawValue, CInt(SHUT_RDWR))
        #expect(try Self.wait(pair.server, for: Int16(POLLIN)))
        #expect(try buffer.withUnsafeMutableBytes { try TCPSocket.receive(pair.server, into: $0) } == 0)
        // Sending to a closed peer fails with EPIPE or ECONNRESET, never SIGPIPE.
        var failed = false
        for _ in 0..<100 where !failed {
            do { _ = try [UInt8]([9]).withUnsafeBytes { try TCPSocket.send(pair.server, $0) } } catch { failed = true }
        }
        #expect(failed)
    }

    @Test("A refused connection reports its error")
    func refused() throws {
        let listener = try TCPSocket.listen(on: .loopback(port: 0))
        let address = try TCPSocket.localAddress(of: listener)
        try listener.close()
        let client = try TCPSocket.connect(to: address)
        #expect(try Self.wait(client, for: Int16(POLLOUT)))
        #expect(TCPSocket.pendingError(of: client)?.rawValue == ECONNREFUSED)
    }

    @Test("Random bytes are fresh")
    func random() throws {
        let first = try RandomBytes.make(count: 32), second = try RandomBytes.make(count: 32)
        #expect(first.count == 32 && first != second)
        #expect(try RandomBytes.make(count: 1000).count == 1000)
    }

    #if ENABLE_MOCKING
    @Test("socket, setsockopt, bind, listen, connect and getsockname failures are thrown", arguments: [
        SyscallFaults.Call.socket, .setsockopt, .bind, .listen, .getsockname,
    ])
    func setupFailures(call: SyscallFaults.Call) throws {
        let faults = SyscallFaults()
        faults.inject(.fail(.tooManyOpenFiles), into: call)
        #expect(throws: Errno.tooManyOpenFiles) {
            try faults.withFaults { () throws(Errno) in
                let listener = try TCPSocket.listen(on: .loopback(port: 0))
                _ = try TCPSocket.localAddress(of: listener)
            }
        }
    }

    @Test("A failed connect is thrown; EINTR leaves it completing in the background")
    func connectFailures() throws {
        let listener = try TCPSocket.listen(on: .loopback(port: 0))
        let address = try TCPSocket.localAddress(of: listener)
        let faults = SyscallFaults()
        faults.inject(.fail(Errno(rawValue: ENETUNREACH)), into: .connect)
        #expect(throws: Errno(rawValue: ENETUNREACH)) {
            try faults.withFaults { () throws(Errno) in _ = try TCPSocket.connect(to: address).rawValue }
        }
        faults.inject(.fail(.interrupted), into: .connect)
        let made = try faults.withFaults { () throws(Errno) in try TCPSocket.connect(to: address).rawValue >= 0 }
        #expect(made)
    }

    @Test("accept: EMFILE is thrown, EINTR retried, nothing waiting is nil")
    func acceptFailures() throws {
        let pair = try Self.connectedPair()
        var peer = TCPSocket.Address(host: 0, port: 0)
        #expect(try TCPSocket.accept(pair.listener, peer: &peer) == nil ? true : false)
        let client = try TCPSocket.connect(to: try TCPSocket.localAddress(of: pair.listener))
        #expect(try Self.wait(pair.listener, for: Int16(POLLIN)))
        let faults = SyscallFaults()
        faults.inject(.fail(.tooManyOpenFiles), into: .accept)
        #expect(throws: Errno.tooManyOpenFiles) { try faults.withFaults { () throws(Errno) in _ = try TCPSocket.accept(pair.listener, peer: &peer)?.rawValue } }
        faults.inject(.fail(.interrupted), into: .accept)
        let accepted = try faults.withFaults { () throws(Errno) in try TCPSocket.accept(pair.listener, peer: &peer) != nil }
        #expect(accepted)
        #expect(faults.count(of: .accept) == 3)
        _ = client
    }

    @Test("send and recv: short transfers are reported, errors thrown, EINTR retried")
    func transferFaults() throws {
        let pair = try Self.connectedPair()
        let faults = SyscallFaults()
        faults.inject(.shortTransfer(maximumBytes: 2), into: .send)
        faults.inject(.fail(.interrupted), into: .recv)
        faults.inject(.shortTransfer(maximumBytes: 1), into: .recv)
        faults.inject(.fail(Errno(rawValue: ECONNRESET)), into: .recv)
        try faults.withFaults { () throws in
            #expect(try [UInt8]([1, 2, 3, 4]).withUnsafeBytes { try TCPSocket.send(pair.client, $0) } == 2)
            #expect(try Self.wait(pair.server, for: Int16(POLLIN)))
            var buffer = [UInt8](repeating: 0, count: 8)
            #expect(try buffer.withUnsafeMutableBytes { try TCPSocket.receive(pair.server, into: $0) } == 1)
            #expect(buffer[0] == 1)
            let reset = buffer.withUnsafeMutableBytes { raw in Result { () throws(Errno) in try TCPSocket.receive(pair.server, into: raw) } }
            #expect(throws: Errno(rawValue: ECONNRESET)) { try reset.get() }
            #expect(try buffer.withUnsafeMutableBytes { try TCPSocket.receive(pair.server, into: $0) } == 1)
            #expect(buffer[0] == 2)
        }
        #expect(faults.count(of: .recv) == 4)
    }

    @Test("getrandom: a short answer is completed, EINTR retried, ENOSYS thrown")
    func randomFaults() throws {
        let faults = SyscallFaults()
        faults.inject(.shortTransfer(maximumBytes: 5), into: .getrandom)
        faults.inject(.fail(.interrupted), into: .getrandom)
        let bytes = try faults.withFaults { () throws(Errno) in try RandomBytes.make(count: 32) }
        #expect(bytes.count == 32 && bytes.suffix(27) != [UInt8](repeating: 0, count: 27))
        #expect(faults.count(of: .getrandom) == 3)
        faults.inject(.fail(.notImplemented), into: .getrandom)
        #expect(throws: Errno.notImplemented) { try faults.withFaults { () throws(Errno) in _ = try RandomBytes.make(count: 4) } }
    }
    #endif
}
