import Foundation
import Glibc
import Synchronization

/// A TCP proxy on 127.0.0.1 between the two ends of a companion link, under the test's control:
/// it forwards each connection it accepts to `target`, and can cut every connection (and refuse
/// new ones until ``restore()``), black-hole the streams (connections stay open, bytes vanish: a
/// half-open link), delay each chunk, flip one byte of a stream, and record the bytes that
/// crossed so a test can replay them on a new connection. Blocking sockets, a thread per
/// direction; ``close()`` ends everything.
public final class LinkProxy: Sendable {
    public enum Direction: Sendable { case toTarget, fromTarget }

    private struct Link {
        var client: CInt
        var server: CInt
        var forwarded: [Direction: Int] = [:]
    }

    private struct State {
        var links: [Int: Link] = [:]
        var nextID = 0
        var refusing = false
        var blackHole = false
        var delay: Duration = .zero
        /// The next connection's byte at this offset of this direction is flipped.
        var tamper: (Direction, Int)?
        var closed = false
        var accepted = 0
        var finishedPumps: [Int: Int] = [:]
        /// Every connection's bytes, by connection, kept after it closed.
        var recordings: [Int: [Direction: [UInt8]]] = [:]
    }

    public let port: UInt16
    private let target: UInt16
    private let listener: CInt
    private let state = Mutex(State())

    /// A proxy on a free loopback port forwarding to `127.0.0.1:targetPort`.
    public init(targetPort: UInt16) throws {
        target = targetPort
        let listening = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = Self.loopback(port: 0)
        var one: CInt = 1
        setsockopt(listening, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<CInt>.size))
        guard Self.withAddress(&address, { bind(listening, $0, $1) }) == 0, Glibc.listen(listening, 64) == 0 else {
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listening, $0, &length) } }
        listener = listening
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    static func withAddress(_ address: inout sockaddr_in, _ body: (UnsafePointer<sockaddr>, socklen_t) -> CInt) -> CInt {
        withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
    }

    /// A blocking connection to `127.0.0.1:port`, or -1.
    public static func connect(port: UInt16) -> CInt {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = loopback(port: port)
        guard withAddress(&address, { Glibc.connect(fd, $0, $1) }) == 0 else {
            Glibc.close(fd)
            return -1
        }
        return fd
    }

    /// Connections accepted so far.
    public var acceptedCount: Int { state.withLock { $0.accepted } }
    /// Connections open now.
    public var openCount: Int { state.withLock { $0.links.count } }

    /// Closes every connection and refuses new ones (accepted, then closed at once) until ``restore()``.
    public func cut() {
        let links = state.withLock { state -> [Link] in
            state.refusing = true
            defer { state.links = [:] }
            return Array(state.links.values)
        }
        for link in links { Self.shut(link) }
    }

    /// Forwards again: new connections are accepted and bytes flow.
    public func restore() {
        state.withLock {
            $0.refusing = false
            $0.blackHole = false
            $0.delay = .zero
        }
    }

    /// Keeps the connections open but forwards nothing, either way (a half-open link).
    public func blackHole() { state.withLock { $0.blackHole = true } }

    /// Holds each chunk this long before forwarding it.
    public func delay(_ duration: Duration) { state.withLock { $0.delay = duration } }

    /// Flips (xor 0x01) the byte at `offset` of `direction` in the next connection accepted.
    public func tamperNextConnection(_ direction: Direction, atOffset offset: Int) { state.withLock { $0.tamper = (direction, offset) } }

    /// The bytes recorded so far in `direction` of connection `index` (0: the first accepted and forwarded).
    public func recorded(_ direction: Direction, connection index: Int) -> [UInt8] {
        state.withLock { $0.recordings[index]?[direction] ?? [] }
    }

    /// Bytes forwarded in `direction` of the most recent connection.
    public func forwarded(_ direction: Direction) -> Int {
        state.withLock { state in state.links.max { $0.key < $1.key }?.value.forwarded[direction] ?? 0 }
    }

    /// Ends the proxy and every connection.
    public func close() {
        let links = state.withLock { state -> [Link] in
            state.closed = true
            defer { state.links = [:] }
            return Array(state.links.values)
        }
        for link in links { Self.shut(link) }
        shutdown(listener, CInt(SHUT_RDWR))
    }

    private static func shut(_ link: Link) {
        shutdown(link.client, CInt(SHUT_RDWR))
        shutdown(link.server, CInt(SHUT_RDWR))
    }

    private func acceptLoop() {
        while !state.withLock({ $0.closed }) {
            var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 200) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            let refusing = state.withLock { state -> Bool in
                state.accepted += 1
                return state.refusing || state.closed
            }
            if refusing {
                Glibc.close(client)
                continue
            }
            let server = Self.connect(port: target)
            guard server >= 0 else {
                Glibc.close(client)
                continue
            }
            let (id, tamper) = state.withLock { state -> (Int, (Direction, Int)?) in
                let id = state.nextID
                state.nextID += 1
                state.links[id] = Link(client: client, server: server)
                defer { state.tamper = nil }
                return (id, state.tamper)
            }
            let up = Thread { [self] in pump(id, from: client, to: server, .toTarget, tamper: tamper?.0 == .toTarget ? tamper?.1 : nil) }
            let down = Thread { [self] in pump(id, from: server, to: client, .fromTarget, tamper: tamper?.0 == .fromTarget ? tamper?.1 : nil) }
            up.start()
            down.start()
        }
        Glibc.close(listener)
    }

    private func pump(_ id: Int, from source: CInt, to destination: CInt, _ direction: Direction, tamper: Int?) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var offset = 0
        defer {
            // Both pumps end once either side goes; the second one closes the descriptors.
            let last = state.withLock { state -> Bool in
                state.links.removeValue(forKey: id)
                state.finishedPumps[id, default: 0] += 1
                return state.finishedPumps[id] == 2
            }
            shutdown(source, CInt(SHUT_RDWR))
            shutdown(destination, CInt(SHUT_RDWR))
            if last {
                Glibc.close(source)
                Glibc.close(destination)
            }
        }
        while true {
            let count = read(source, &buffer, buffer.count)
            guard count > 0 else {
                // In a black hole a close does not cross either: the other end keeps a
                // connection that hears nothing (half-open) until the hole is lifted or cut.
                while state.withLock({ $0.blackHole && $0.links[id] != nil && !$0.closed }) { usleep(50_000) }
                return
            }
            var chunk = Array(buffer[0..<count])
            if let tamper, tamper >= offset, tamper < offset + count { chunk[tamper - offset] ^= 0x01 }
            offset += count
            let (hole, delay) = state.withLock { state -> (Bool, Duration) in
                state.recordings[id, default: [:]][direction, default: []] += chunk
                return (state.blackHole, state.delay)
            }
            if hole { continue }
            if delay > .zero { Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18) }
            var sent = 0
            while sent < chunk.count {
                let written = chunk[sent...].withUnsafeBytes { send(destination, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard written > 0 else { return }
                sent += written
            }
            state.withLock { $0.links[id]?.forwarded[direction, default: 0] += chunk.count }
        }
    }
}
