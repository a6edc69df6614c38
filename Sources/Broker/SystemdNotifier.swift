import FoundationEssentials
import Glibc

/// The daemon's side of systemd's notify protocol (`Type=notify`, `sd_notify(3)`): datagrams of
/// `KEY=VALUE` lines sent to the `AF_UNIX` socket named by `$NOTIFY_SOCKET`.
///
/// A path starting with `@` is in the abstract namespace. When the variable is unset (not run
/// by systemd) every call is a no-op. A failure to send is logged through `log` and otherwise
/// ignored: telling systemd is never worth stopping the daemon for.
package struct SystemdNotifier: Sendable {
    /// The socket path from the environment, or `nil` when not run under `Type=notify`.
    package let socketPath: String?
    private let log: @Sendable (String) -> Void

    /// - Parameters:
    ///   - environment: where to find `NOTIFY_SOCKET` (the process environment by default).
    ///   - log: receives one line per failed send.
    package init(
        environment: [String: String] = ProcessInfo.processInfo.environment, log: @escaping @Sendable (String) -> Void
    ) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        self.log = log
    }

    /// `READY=1`: start-up is complete (the first snapshot is published), or a reload finished.
    package func ready() { send("READY=1") }

    /// `STOPPING=1`: shutting down.
    package func stopping() { send("STOPPING=1") }

    /// `RELOADING=1` with `MONOTONIC_USEC=` (CLOCK_MONOTONIC, microseconds), as systemd 253 and
    /// later expect for `Type=notify-reload`; send ``ready()`` when the reload is done.
    package func reloading() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        send("RELOADING=1\nMONOTONIC_USEC=\(Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000)")
    }

    /// Sends `message` (newline-separated `KEY=VALUE` assignments) as one datagram.
    /// Returns whether it was sent; `false` when there is no socket or sending failed (logged).
    @discardableResult
    package func send(_ message: String) -> Bool {
        guard let socketPath else { return false }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(socketPath.utf8)
        if pathBytes.first == UInt8(ascii: "@") { pathBytes[0] = 0 }  // abstract namespace
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard pathBytes.count < capacity else {
            log("NOTIFY_SOCKET \(socketPath): path longer than \(capacity - 1) bytes; not notifying systemd")
            return false
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in pathBytes.enumerated() { buffer[index] = byte }
        }
        // An abstract address is exactly its bytes; a path one is NUL-terminated.
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + pathBytes.count + (pathBytes[0] == 0 ? 0 : 1))

        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            log("NOTIFY_SOCKET \(socketPath): socket: \(String(cString: strerror(errno))); not notifying systemd")
            return false
        }
        defer { close(descriptor) }
        let payload = Array(message.utf8)
        var sent: Int
        repeat {
            sent = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    sendto(descriptor, payload, payload.count, Int32(MSG_NOSIGNAL), socketAddress, length)
                }
            }
        } while sent < 0 && errno == EINTR
        guard sent == payload.count else {
            let reason = sent < 0 ? String(cString: strerror(errno)) : "short send"
            log("NOTIFY_SOCKET \(socketPath): sendto: \(reason); systemd was not told \(message.split(separator: "\n").first ?? "")")
            return false
        }
        return true
    }
}
