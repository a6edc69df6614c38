import Foundation
// The benchmark calls the C library directly on purpose: its floors are the kernel without SystemShims.
import Glibc

/// The companion link's network floor: one byte bounced over a loopback TCP connection
/// (127.0.0.1, `TCP_NODELAY`) between this thread and an echoing thread; one way is half the
/// round trip.
enum TCPPingPong {
    /// One-way latencies in microseconds over `rounds` round trips (after 50 unmeasured ones).
    static func measure(rounds: Int) throws(BenchmarkError) -> [Double] {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw .system("socket") }
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && listen(listener, 1) == 0 && getsockname(listener, address, &length) == 0
            }
        }
        guard bound else { throw .system("bind 127.0.0.1") }
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard client >= 0 else { throw .system("socket") }
        defer { close(client) }
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) == 0 }
        }
        let server = accept(listener, nil, nil)
        guard connected, server >= 0 else { throw .system("connect 127.0.0.1") }
        var one: Int32 = 1
        setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(server, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let echo = Thread {
            var byte: UInt8 = 0
            while recv(server, &byte, 1, 0) == 1 { _ = send(server, &byte, 1, Int32(MSG_NOSIGNAL)) }
            close(server)
        }
        echo.start()
        var samples: [Double] = []
        samples.reserveCapacity(rounds)
        var byte: UInt8 = 1
        for round in 0..<(rounds + 50) {
            let start = MonotonicClock.now()
            guard send(client, &byte, 1, Int32(MSG_NOSIGNAL)) == 1, recv(client, &byte, 1, 0) == 1 else {
                shutdown(client, Int32(SHUT_RDWR))
                throw .system("tcp ping-pong")
            }
            let end = MonotonicClock.now()
            if round >= 50 { samples.append(Double(end - start) / 2000) }
        }
        // The echo thread sees end of file and closes its end.
        shutdown(client, Int32(SHUT_RDWR))
        return samples
    }
}
