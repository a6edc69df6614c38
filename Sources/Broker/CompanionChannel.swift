import CompanionLink
import EntitlementDefaults
import StoreKitFormats
import FoundationEssentials
import ServiceRuntime
import Cryptography
import Synchronization
import SystemShims

/// The companion link of one daemon, on a thread of its own: the sockets (a listener on the
/// watch, a connection kept up by the phone), each connection's handshake and session
/// (``CompanionLink``'s state machines), and replication both ways.
///
/// Outbound, it sends the peer the events of this side's ``CompanionOutbox`` from the sequence the
/// peer says it holds, a bounded amount at a time, and records the peer's acknowledgements.
/// Inbound, it checks each event under the daemon's catalog (``KeptLine``): one no catalog could
/// read is refused, logged once and acknowledged; the others are queued durably in the inbox
/// (the drain applies them, idempotently, as it applies `ingest`'s) before they are
/// acknowledged. Liveness: a heartbeat every ``heartbeatInterval`` when nothing else is sent, a
/// peer silent for ``silenceLimit`` is dropped, a handshake not done in ``handshakeDeadline``
/// too, at most ``maximumUnauthenticated`` connections wait for their handshake at once, and
/// the phone reconnects with back-off capped at 5 s. Every failure is one log line and a closed
/// connection; the daemon's own container is served throughout by the loop's thread.
final class CompanionChannel: @unchecked Sendable {
    static let handshakeDeadline: Duration = .seconds(5)
    static let heartbeatInterval: Duration = .seconds(2)
    static let silenceLimit: Duration = .seconds(8)
    static let maximumUnauthenticated = 16
    /// More events are sealed only while less than this many bytes wait to be sent.
    static let outputHighWater = 256 * 1024
    /// Most bytes read from one connection per wake-up, so one peer cannot starve the others.
    static let readBudget = 256 * 1024

    private let role: LinkRole
    private let address: TCPSocket.Address
    private let pairingKey: SecretBytes
    private let layout: ContainerLayout
    private let outbox: CompanionOutbox
    private let inbox: Inbox
    private let log: @Sendable (String) -> Void
    private let signatures: Mutex<SignaturePolicy>
    private let wakePipe: FileDescriptor.Pipe
    private let stopped = Atomic<Bool>(false)
    private let syncedAt = Mutex<Date?>(nil)

    // The link thread's own state.
    private var listener: SharedFileDescriptor?
    private var connections: [CompanionConnection] = []
    private var reconnectAt: ContinuousClock.Instant = .now
    private var backoff = RetryBackoff(initialDelay: 0.25, maximumDelay: 5)
    private var positions: CompanionPositions
    private var status = CompanionStatus()
    private var statusWrittenAt: ContinuousClock.Instant?
    /// Inbox files queued from the peer not yet applied, and how many events each holds.
    private var queuedFromPeer: [String: UInt64] = [:]
    private var post: @Sendable () -> Void = {}

    /// A channel for `configuration`, whose listener (on the watch) is bound at once, so a port
    /// in use is an error at start.
    init(
        configuration: CompanionConfiguration, pairingKey: SecretBytes, layout: ContainerLayout, outbox: CompanionOutbox,
        positions: CompanionPositions, signatures: SignaturePolicy, log: @escaping @Sendable (String) -> Void
    ) throws(BrokerError) {
        address = try configuration.address()
        self.pairingKey = pairingKey
        self.layout = layout
        self.outbox = outbox
        self.positions = positions
        self.log = log
        self.signatures = Mutex(signatures)
        inbox = Inbox(directory: layout.inboxDirectory)
        do { wakePipe = try FileDescriptor.pipe(nonBlocking: true) } catch {
            throw .io(path: "pipe", operation: "create companion wake-up pipe", errno: error)
        }
        switch configuration.endpoint {
        case .listen:
            role = .responder
            let bound: TCPSocket.Address
            do {
                let socket = SharedFileDescriptor(try TCPSocket.listen(on: address))
                bound = try TCPSocket.localAddress(of: socket.descriptor)
                listener = socket
            } catch {
                throw .io(path: "\(address)", operation: "listen (--companion-listen)", errno: error)
            }
            // The port actually bound: port 0 asks the kernel for a free one.
            log("companion: listening on \(bound)")
        case .connect:
            role = .initiator
        }
        status.pendingOut = outbox.count - min(outbox.count, positions.acknowledged)
        writeStatus(force: true)
    }

    /// The last authenticated exchange with the peer; nil before the first of this run.
    var lastSync: Date? { syncedAt.withLock { $0 } }

    /// The catalog was reloaded: check the peer's events under its policy from now on.
    func setSignatures(_ policy: SignaturePolicy) { signatures.withLock { $0 = policy } }

    /// New events are in the outbox: send them.
    func wake() {
        _ = try? [UInt8(1)].withUnsafeBytes { try wakePipe.writeEnd.write($0, retryOnInterrupt: true) }
    }

    /// Ends ``run(onSync:)`` soon, from any thread.
    func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        wake()
    }

    /// Serves the link until ``stop()``; `onSync` is called (on this thread) after each
    /// authenticated exchange, at most once a second.
    func run(onSync: @escaping @Sendable () -> Void) {
        post = onSync
        while !stopped.load(ordering: .sequentiallyConsistent) {
            step()
        }
        for connection in connections { close(connection, reason: nil) }
        status.connected = false
        status.peer = nil
        writeStatus(force: true)
    }

    // MARK: - One turn of the loop

    private func step() {
        let now = ContinuousClock.now
        if role == .initiator, connections.isEmpty, now >= reconnectAt { startConnecting() }
        var requests = [PollRequest(descriptor: wakePipe.readEnd.rawValue, read: true, write: false)]
        let listening = listener != nil && unauthenticatedCount < Self.maximumUnauthenticated
        if let listener, listening { requests.append(PollRequest(descriptor: listener.descriptor.rawValue, read: true, write: false)) }
        let polled = connections
        for connection in polled {
            requests.append(PollRequest(descriptor: connection.socket.rawValue, read: !connection.connecting, write: connection.connecting || connection.pendingOutput > 0))
        }
        let results: [PollResult]
        do { results = try pollDescriptors(requests, timeoutMilliseconds: timeoutMilliseconds(now: now)) } catch {
            log("companion: poll failed: \(error)")
            return
        }
        if results[0].readable { drainWakePipe() }
        var index = 1
        if listening {
            if results[1].readable { acceptConnections() }
            index = 2
        }
        for (connection, result) in zip(polled, results[index...]) where isOpen(connection) {
            service(connection, result)
        }
        let later = ContinuousClock.now
        for connection in connections { checkTimers(connection, now: later) }
        for connection in connections where connection.session != nil && connection.nextToSend != nil {
            fill(connection)
            flush(connection)
        }
        refreshStatus()
    }

    private var unauthenticatedCount: Int { connections.count { $0.session == nil } }

    private func isOpen(_ connection: CompanionConnection) -> Bool { connections.contains { $0 === connection } }

    private func timeoutMilliseconds(now: ContinuousClock.Instant) -> CInt {
        var deadline = now.advanced(by: .seconds(1))
        if role == .initiator, connections.isEmpty { deadline = min(deadline, reconnectAt) }
        for connection in connections {
            if connection.session == nil {
                deadline = min(deadline, connection.openedAt.advanced(by: Self.handshakeDeadline))
            } else {
                deadline = min(deadline, connection.lastSent.advanced(by: Self.heartbeatInterval))
            }
        }
        let components = (deadline - now).components
        return CInt(max(0, min(1000, components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 + 1)))
    }

    private func drainWakePipe() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while let count = try? buffer.withUnsafeMutableBytes({ try wakePipe.readEnd.read(into: $0) }), count > 0 {}
    }

    // MARK: - Connections

    private func makeHandshake() -> Handshake? {
        do {
            let nonce = try RandomBytes.make(count: 32)
            return try Handshake(role: role, pairingKey: pairingKey, nonce: nonce)
        } catch {
            log("companion: cannot begin a handshake: \(error)")
            return nil
        }
    }

    private func startConnecting() {
        guard let handshake = makeHandshake() else {
            scheduleReconnect()
            return
        }
        do {
            let socket = try TCPSocket.connect(to: address)
            connections.append(CompanionConnection(socket: socket, peer: "\(address)", connecting: true, handshake: handshake))
        } catch {
            log("companion: connect to \(address) failed: \(error)")
            scheduleReconnect()
        }
    }

    private func scheduleReconnect() {
        let delay = backoff.failed()
        reconnectAt = ContinuousClock.now.advanced(by: .seconds(delay))
    }

    private func acceptConnections() {
        guard let listener else { return }
        var peer = TCPSocket.Address(host: 0, port: 0)
        while true {
            let accepted: FileDescriptor?
            do { accepted = try TCPSocket.accept(listener.descriptor, peer: &peer) } catch {
                log("companion: accept failed: \(error)")
                return
            }
            guard let socket = accepted else { return }
            guard unauthenticatedCount < Self.maximumUnauthenticated else {
                // One line per refused connection, naming it; the connection closes with `socket`.
                log("companion: \(peer): refused: \(Self.maximumUnauthenticated) connections are already waiting for their handshake; connection closed")
                _ = socket
                continue
            }
            guard let handshake = makeHandshake() else { return }
            connections.append(CompanionConnection(socket: socket, peer: "\(peer)", connecting: false, handshake: handshake))
        }
    }

    /// Closes `connection`, logging `reason` (one line) when given.
    private func close(_ connection: CompanionConnection, reason: String?) {
        guard let index = connections.firstIndex(where: { $0 === connection }) else { return }
        connections.remove(at: index)
        if let reason { log("companion: \(connection.peer): \(reason); connection closed") }
        if connection.session != nil, !connections.contains(where: { $0.session != nil }) {
            status.connected = false
            status.peer = nil
            writeStatus(force: true)
        }
        if role == .initiator, connections.isEmpty { scheduleReconnect() }
    }

    private func service(_ connection: CompanionConnection, _ result: PollResult) {
        if connection.connecting {
            guard result.writable || result.failed else { return }
            if let error = TCPSocket.pendingError(of: connection.socket) {
                // Each failed attempt is one line; the back-off keeps them at most 5 s apart.
                close(connection, reason: "connect failed: \(error.message)")
                return
            }
            connection.connecting = false
        }
        if result.readable || result.failed { receive(connection) }
        if isOpen(connection) { flush(connection) }
    }

    private func flush(_ connection: CompanionConnection) {
        guard !connection.connecting, connection.pendingOutput > 0 else { return }
        do { try connection.flush() } catch { close(connection, reason: "send failed: \(error.message)") }
    }

    private func checkTimers(_ connection: CompanionConnection, now: ContinuousClock.Instant) {
        if connection.session == nil {
            if now - connection.openedAt >= Self.handshakeDeadline {
                close(connection, reason: connection.connecting ? "connection attempt timed out" : LinkError.handshakeTimedOut.description)
            }
            return
        }
        if now - connection.lastHeard >= Self.silenceLimit {
            close(connection, reason: LinkError.peerSilent(seconds: Int(Self.silenceLimit.components.seconds)).description)
            return
        }
        if now - connection.lastSent >= Self.heartbeatInterval {
            do { try connection.send(.heartbeat) } catch { close(connection, reason: "\(error)") }
        }
    }

    // MARK: - Receiving

    private func receive(_ connection: CompanionConnection) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var budget = Self.readBudget
        var batch: [(UInt64, [UInt8])] = []
        while budget > 0 {
            let count: Int?
            let outcome = buffer.withUnsafeMutableBytes { raw in
                Result { () throws(Errno) in try TCPSocket.receive(connection.socket, into: raw) }
            }
            do { count = try outcome.get() } catch {
                close(connection, reason: "receive failed: \(error.message)")
                return
            }
            guard let count else { break }
            if count == 0 {
                let reason: String
                do throws(LinkError) {
                    try connection.decoder.finish()
                    reason = "the peer closed the connection"
                } catch { reason = error.description }
                deliver(batch, from: connection)
                close(connection, reason: reason)
                return
            }
            budget -= count
            connection.decoder.append(buffer[0..<count])
            do throws(LinkError) {
                while let frame = try connection.decoder.nextFrame() {
                    try handle(frame, from: connection, batch: &batch)
                }
            } catch {
                // Nothing of the failing frame is used; what arrived before it is kept, and what
                // was queued before it still goes out: the proof answering the peer's hello lets
                // the peer tell a wrong key from a dropped connection.
                deliver(batch, from: connection)
                try? connection.flush()
                close(connection, reason: error.description)
                return
            }
        }
        deliver(batch, from: connection)
    }

    private func handle(_ frame: LinkFrame, from connection: CompanionConnection, batch: inout [(UInt64, [UInt8])]) throws(LinkError) {
        guard let session = connection.session else {
            let step = try connection.handshake.receive(frame)
            for reply in step.send { connection.queue(reply) }
            if let session = step.session { begin(session, on: connection) }
            return
        }
        let message = try LinkMessage(decoding: try session.open(frame))
        connection.lastHeard = .now
        noteSync()
        switch message {
        case .heartbeat:
            break
        case .resume(let received):
            guard received <= outbox.count else {
                throw .malformedMessage("the peer holds event \(received) of \(outbox.count) offered (another pair's container?)")
            }
            // What it acknowledged before was compacted away: only a reset container forgets it
            // (the received position is saved durably before it is acknowledged).
            guard received + 1 >= outbox.firstInFile else {
                throw .malformedMessage(
                    "the peer holds event \(received), but acknowledged events up to \(outbox.firstInFile - 1), no longer offered (was its container reset?)")
            }
            connection.nextToSend = received + 1
            acknowledge(through: received)
        case .ack(let through):
            guard through <= outbox.count else { throw .malformedMessage("ack of event \(through) of \(outbox.count) offered") }
            acknowledge(through: through)
        case .event(let sequence, let final, let bytes):
            guard var inbound = connection.inbound else { throw .unexpectedFrame(.sealed) }
            let line = try inbound.receive(sequence: sequence, final: final, bytes: bytes)
            connection.inbound = inbound
            if let line { batch.append(line) }
        }
    }

    private func begin(_ session: LinkSession, on connection: CompanionConnection) {
        for other in connections where other !== connection && other.session != nil {
            close(other, reason: "replaced by a new session")
        }
        connection.session = session
        connection.lastHeard = .now
        connection.inbound = ReplicationInbound(received: positions.received, maximumLineByteCount: EventLine.maximumLength)
        _ = backoff.succeeded()
        do { try connection.send(.resume(received: positions.received)) } catch {
            close(connection, reason: error.description)
            return
        }
        log("companion: session with \(connection.peer) authenticated (\(role == .initiator ? "we connected" : "it connected"))")
        status.connected = true
        status.peer = connection.peer
        noteSync()
        writeStatus(force: true)
    }

    private func acknowledge(through sequence: UInt64) {
        guard sequence > positions.acknowledged else { return }
        positions.acknowledged = sequence
        outbox.trim(through: sequence)
        guard outbox.wantsCompaction else {
            savePositions()
            return
        }
        // The position is on disk before the lines it acknowledges leave the outbox.
        guard savePositions(durable: true) else { return }
        do { try outbox.compact() } catch { log("companion: \(error); the outbox stays as it is") }
    }

    @discardableResult
    private func savePositions(durable: Bool = false) -> Bool {
        do { try positions.save(path: layout.companionPositionsPath, durable: durable) } catch {
            log("companion: \(error)")
            return false
        }
        return true
    }

    /// Queues the peer's complete new events in the inbox (durably), then acknowledges them.
    private func deliver(_ batch: [(UInt64, [UInt8])], from connection: CompanionConnection) {
        guard let last = batch.last?.0 else { return }
        let policy = signatures.withLock { $0 }
        var lines: [String] = []
        for (sequence, bytes) in batch {
            do {
                _ = try KeptLine.reading(bytes, signatures: policy)
                lines.append(String(decoding: bytes, as: UTF8.self))
            } catch {
                log("companion: refused event \(sequence) from \(connection.peer): \(error); acknowledged, not applied")
            }
        }
        if !lines.isEmpty {
            do {
                let names = try inbox.enqueue(splitting: lines, durable: true, fromPeer: true)
                queuedFromPeer[names[0]] = UInt64(lines.count)
            } catch {
                // Not acknowledged: the peer sends them again on the next connection.
                close(connection, reason: "cannot queue the peer's events: \(error)")
                return
            }
        }
        positions.received = last
        // Durably: the peer compacts away what this side acknowledges, so it must never be asked again.
        guard savePositions(durable: true) else {
            close(connection, reason: "cannot record the peer's events as received; they are sent again")
            return
        }
        guard isOpen(connection), connection.session != nil else { return }
        do { try connection.send(.ack(through: last)) } catch { close(connection, reason: error.description) }
    }

    // MARK: - Sending

    /// Seals the next events for the peer while little waits to be sent.
    private func fill(_ connection: CompanionConnection) {
        guard var next = connection.nextToSend else { return }
        while connection.pendingOutput < Self.outputHighWater {
            let lines = outbox.lines(from: next, limit: 64)
            guard !lines.isEmpty else { break }
            for (sequence, line) in lines {
                for message in LinkMessage.chunks(of: line, sequence: sequence) {
                    do { try connection.send(message) } catch {
                        close(connection, reason: error.description)
                        return
                    }
                }
                next = sequence + 1
            }
        }
        connection.nextToSend = next
    }

    // MARK: - Status

    private func noteSync() {
        let now = Date()
        let previous = syncedAt.withLock { synced -> Date? in
            defer { synced = now }
            return synced
        }
        status.lastSyncAt = now
        if previous == nil || now.timeIntervalSince(previous!) >= 1 || previous! > now { post() }
    }

    private func refreshStatus() {
        queuedFromPeer = queuedFromPeer.filter { inbox.contains($0.key) }
        status.pendingIn = queuedFromPeer.values.reduce(0, +)
        status.pendingOut = outbox.count - min(outbox.count, positions.acknowledged)
        writeStatus(force: false)
    }

    private var writtenStatus: CompanionStatus?

    /// Writes the status file when it changed: at once for a change other than `lastSyncAt`,
    /// at most once a second for that.
    private func writeStatus(force: Bool) {
        guard status != writtenStatus else { return }
        var withoutSync = status, writtenWithoutSync = writtenStatus
        withoutSync.lastSyncAt = nil
        writtenWithoutSync?.lastSyncAt = nil
        let now = ContinuousClock.now
        if !force, withoutSync == writtenWithoutSync, let statusWrittenAt, now - statusWrittenAt < .seconds(1) { return }
        do {
            try status.save(path: layout.companionStatusPath)
            writtenStatus = status
            statusWrittenAt = now
        } catch {
            log("companion: \(layout.companionStatusPath): write failed: \(error)")
        }
    }
}
