import BrokerTools
import Synchronization
import SystemShims

/// The demo's stand-in for the radio between the phone and the watch: a TCP relay on 127.0.0.1
/// that forwards each connection it accepts to the watch's daemon, and that the demo can take out
/// of range (every connection closed, new ones closed as soon as they arrive) and bring back.
///
/// One thread serves every connection with non-blocking sockets and `poll`; a pipe wakes it when
/// the demo changes the range or stops the relay. Bytes are forwarded as they are, never read.
final class DemoRelay: Sendable {
    /// Where the phone's daemon connects: a free loopback port the kernel chose.
    let address: TCPSocket.Address
    private let target: TCPSocket.Address
    private let listener: SharedFileDescriptor
    private let wakePipe: FileDescriptor.Pipe
    private let control = Mutex(Control())

    private struct Control {
        var inRange = true
        var stopped = false
        /// Connections forwarded now; 0 once a cut has taken effect.
        var openLinks = 0
    }

    /// A relay on a free port of 127.0.0.1 forwarding to `target`, serving from a thread of its own.
    init(forwardingTo target: TCPSocket.Address) throws(Errno) {
        self.target = target
        listener = SharedFileDescriptor(try TCPSocket.listen(on: .loopback(port: 0)))
        address = try TCPSocket.localAddress(of: listener.descriptor)
        wakePipe = try FileDescriptor.pipe(nonBlocking: true)
        try DetachedThread.start { [self] in serve() }
    }

    /// Connections forwarded now.
    var openLinks: Int { control.withLock { $0.openLinks } }

    /// Out of range: closes every connection and closes each new one at once, until ``restore()``.
    /// Wait for ``openLinks`` to reach 0 to know the cut has taken effect.
    func cut() {
        control.withLock { $0.inRange = false }
        wake()
    }

    /// Back in range: new connections are forwarded again.
    func restore() {
        control.withLock { $0.inRange = true }
        wake()
    }

    /// Ends the thread and every connection.
    func stop() {
        control.withLock { $0.stopped = true }
        wake()
    }

    private func wake() {
        _ = try? [UInt8(1)].withUnsafeBytes { try wakePipe.writeEnd.write($0, retryOnInterrupt: true) }
    }

    // MARK: - The relay's thread

    /// One forwarded connection: the phone's side and the watch's, and the bytes each way that
    /// the receiving side has not taken yet.
    private final class Link {
        let phone: SharedFileDescriptor
        let watch: SharedFileDescriptor
        var watchConnected = false
        var toWatch: [UInt8] = []
        var toPhone: [UInt8] = []

        init(phone: SharedFileDescriptor, watch: SharedFileDescriptor) {
            self.phone = phone
            self.watch = watch
        }
    }

    private func serve() {
        var links: [Link] = []
        while true {
            let now = control.withLock { $0 }
            if now.stopped { break }
            if !now.inRange { links.removeAll() }
            control.withLock { $0.openLinks = links.count }

            var requests = [
                PollRequest(descriptor: wakePipe.readEnd.rawValue, read: true, write: false),
                PollRequest(descriptor: listener.descriptor.rawValue, read: true, write: false),
            ]
            for link in links {
                // A side is read only when the other has taken everything sent before: the
                // kernel's buffers hold the rest, so no buffer here grows without bound.
                requests.append(PollRequest(
                    descriptor: link.phone.descriptor.rawValue, read: link.watchConnected && link.toWatch.isEmpty, write: !link.toPhone.isEmpty))
                requests.append(PollRequest(
                    descriptor: link.watch.descriptor.rawValue, read: link.watchConnected && link.toPhone.isEmpty,
                    write: !link.watchConnected || !link.toWatch.isEmpty))
            }
            guard let results = try? pollDescriptors(requests, timeoutMilliseconds: -1) else { break }
            if results[0].readable {
                var buffer = [UInt8](repeating: 0, count: 64)
                while let count = try? buffer.withUnsafeMutableBytes({ try wakePipe.readEnd.read(into: $0) }), count > 0 {}
            }
            var survivors: [Link] = []
            for (index, link) in links.enumerated()
            where Self.pump(link, phone: results[2 + 2 * index], watch: results[3 + 2 * index]) {
                survivors.append(link)
            }
            links = survivors
            if results[1].readable { links += acceptWaiting() }
        }
        control.withLock { $0.openLinks = 0 }
    }

    /// Takes every connection waiting on the listener: forwarded in range, closed out of range.
    private func acceptWaiting() -> [Link] {
        var accepted: [Link] = []
        var peer = TCPSocket.Address(host: 0, port: 0)
        while let connection = try? TCPSocket.accept(listener.descriptor, peer: &peer) {
            let phone = SharedFileDescriptor(connection)
            guard control.withLock({ $0.inRange }), let watch = try? TCPSocket.connect(to: target) else { continue }
            accepted.append(Link(phone: phone, watch: SharedFileDescriptor(watch)))
        }
        return accepted
    }

    /// Moves what is ready across `link`; false when the link is over (either side closed or failed).
    private static func pump(_ link: Link, phone: PollResult, watch: PollResult) -> Bool {
        if !link.watchConnected {
            guard watch.writable || watch.failed else { return true }
            guard TCPSocket.pendingError(of: link.watch.descriptor) == nil else { return false }
            link.watchConnected = true
        }
        guard forward(from: link.phone, readable: phone.readable, into: &link.toWatch),
              forward(from: link.watch, readable: watch.readable, into: &link.toPhone),
              flush(&link.toWatch, to: link.watch), flush(&link.toPhone, to: link.phone)
        else { return false }
        let hungUp = (phone.failed && !phone.readable) || (watch.failed && !watch.readable)
        return !hungUp
    }

    /// Reads what `source` has into `pending`; false at its end of stream or on an error.
    private static func forward(from source: SharedFileDescriptor, readable: Bool, into pending: inout [UInt8]) -> Bool {
        guard readable else { return true }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let received = buffer.withUnsafeMutableBytes { bytes in
            Result { () throws(Errno) in try TCPSocket.receive(source.descriptor, into: bytes) }
        }
        switch received {
        case .success(nil): return true
        case .success(let count?) where count > 0:
            pending += buffer[..<count]
            return true
        default: return false
        }
    }

    /// Sends what of `pending` `destination` takes now; false on an error.
    private static func flush(_ pending: inout [UInt8], to destination: SharedFileDescriptor) -> Bool {
        guard !pending.isEmpty else { return true }
        let sent = pending.withUnsafeBytes { bytes in
            Result { () throws(Errno) in try TCPSocket.send(destination.descriptor, bytes) }
        }
        guard case .success(let count) = sent else { return false }
        pending.removeFirst(count)
        return true
    }
}
