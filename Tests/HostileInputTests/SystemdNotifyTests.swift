import Broker
import Foundation
import ServiceRuntime
import EntitlementDefaults
import SharedDefaults
import Synchronization
import TestSupport
import Testing

/// The notify protocol against a datagram socket the test owns: the real `entitlementd` says
/// READY=1 once its first snapshot is published, RELOADING=1/READY=1 around SIGHUP and
/// STOPPING=1 on SIGTERM.
@Suite("systemd notify", .timeLimit(.minutes(1)))
struct SystemdNotifyTests {
    @Test("entitlementd: READY=1 after the first publish, RELOADING=1 + READY=1 on SIGHUP, STOPPING=1 on SIGTERM", arguments: [false, true])
    func daemonLifecycle(abstract: Bool) async throws {
        try await withTemporaryDirectory { root in
            let address = abstract ? "@entitlementd-test-\(UUID().uuidString)" : root + "/notify.sock"
            let socket = try DatagramSocket(bindingTo: address)
            let container = root + "/container", group = "group.test.notify"
            let daemon = try BuiltTools.start(
                "entitlementd", ["--container", container, "--group", group, "--catalog", BuiltTools.defaultCatalog],
                environment: ["NOTIFY_SOCKET": address])
            defer { daemon.send(SIGKILL) }  // when a receive throws; a no-op once it has exited

            let ready = try socket.receive(timeout: .seconds(20))
            #expect(ready == "READY=1", "got \(ready ?? "nothing"); daemon: \(daemon.standardError)")
            // READY only once the snapshot is there for readers.
            #expect(SnapshotReader(suiteName: group, container: container).refresh().snapshot != nil)

            daemon.send(SIGHUP)
            let reloading = try socket.receive(timeout: .seconds(10)) ?? ""
            let lines = reloading.split(separator: "\n")
            #expect(lines.first == "RELOADING=1", "got \(reloading)")
            let microseconds = lines.last.flatMap { $0.hasPrefix("MONOTONIC_USEC=") ? Int64($0.dropFirst(15)) : nil }
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let nowMicroseconds = Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
            #expect(microseconds.map { $0 > 0 && $0 <= nowMicroseconds } == true, "got \(reloading)")
            #expect(try socket.receive(timeout: .seconds(10)) == "READY=1")

            daemon.send(SIGTERM)
            #expect(try socket.receive(timeout: .seconds(10)) == "STOPPING=1")
            #expect(await daemon.waitForExit(timeout: .seconds(10)) == 0)
            if daemon.isRunning { await daemon.stop() }
        }
    }

    @Test("Without NOTIFY_SOCKET nothing is sent; an unreachable socket is logged, never fatal")
    func noSocketAndBrokenSocket() {
        let logged = Mutex<[String]>([])
        #expect(SystemdNotifier(environment: [:]) { line in logged.withLock { $0.append(line) } }.send("READY=1") == false)
        #expect(logged.withLock { $0 }.isEmpty)

        let broken = SystemdNotifier(environment: ["NOTIFY_SOCKET": "/nonexistent/notify.sock"]) { line in logged.withLock { $0.append(line) } }
        #expect(broken.send("READY=1") == false)
        let tooLong = SystemdNotifier(environment: ["NOTIFY_SOCKET": "/" + String(repeating: "x", count: 200)]) { line in logged.withLock { $0.append(line) } }
        #expect(tooLong.send("READY=1") == false)
        let lines = logged.withLock { $0 }
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("NOTIFY_SOCKET /nonexistent/notify.sock: sendto: ") == true, "\(lines)")
        #expect(lines.last?.contains("path longer than") == true, "\(lines)")
    }
}

/// A bound `AF_UNIX` datagram socket (path, or abstract when the address starts with `@`),
/// closed on deinit.
final class DatagramSocket {
    let descriptor: Int32

    init(bindingTo address: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SocketError("socket: errno \(errno)") }
        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(address.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        guard bytes.count < MemoryLayout.size(ofValue: storage.sun_path) else { throw SocketError("address too long: \(address)") }
        withUnsafeMutableBytes(of: &storage.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count + (bytes[0] == 0 ? 0 : 1))
        let result = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard result == 0 else {
            close(descriptor)
            throw SocketError("bind \(address): errno \(errno)")
        }
    }

    deinit { close(descriptor) }

    /// The next datagram as text, or `nil` if none arrives within `timeout` (waits in `poll`).
    func receive(timeout: Duration) throws -> String? {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return nil }
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000, 60_000))
            let ready = poll(&request, 1, max(milliseconds, 1))
            if ready < 0 && errno == EINTR { continue }
            guard ready >= 0 else { throw SocketError("poll: errno \(errno)") }
            if ready == 0 { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count >= 0 else { throw SocketError("recv: errno \(errno)") }
            return String(decoding: buffer[..<count], as: UTF8.self)
        }
    }
}

struct SocketError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
