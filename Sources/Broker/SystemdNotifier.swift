import FoundationEssentials
import SystemShims

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
        environment: [String: String] = ProcessEnvironment.current, log: @escaping @Sendable (String) -> Void
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
        send("RELOADING=1\nMONOTONIC_USEC=\(Clocks.monotonicNanoseconds / 1000)")
    }

    /// Sends `message` (newline-separated `KEY=VALUE` assignments) as one datagram.
    /// Returns whether it was sent; `false` when there is no socket or sending failed (logged).
    @discardableResult
    package func send(_ message: String) -> Bool {
        guard let socketPath else { return false }
        do { try UnixDatagramSocket.send(Array(message.utf8), to: socketPath) } catch {
            switch error {
            case .addressTooLong, .socket: log("NOTIFY_SOCKET \(socketPath): \(error); not notifying systemd")
            case .send, .shortSend:
                log("NOTIFY_SOCKET \(socketPath): \(error); systemd was not told \(message.split(separator: "\n").first ?? "")")
            }
            return false
        }
        return true
    }
}
