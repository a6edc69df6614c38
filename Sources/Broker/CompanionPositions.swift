import EntitlementDefaults
import StoreKitFormats
import FoundationEssentials
import SystemShims

/// How far each direction of the companion link got, kept in `companion-positions.json`:
/// `acknowledged`, the last of this side's outbox sequences the peer acknowledged (it need not
/// be sent again), and `received`, the last of the peer's sequences this side holds durably (its
/// inbox file was fsynced first). `received` is written durably before it is acknowledged, and
/// `acknowledged` before the outbox drops what it covers (``CompanionOutbox/compact()``):
/// either side compacts away what the other acknowledged, so neither position may go back.
package struct CompanionPositions: Sendable, Equatable {
    package var acknowledged: UInt64 = 0
    package var received: UInt64 = 0

    package init(acknowledged: UInt64 = 0, received: UInt64 = 0) {
        self.acknowledged = acknowledged
        self.received = received
    }

    /// The positions in `path`; zero for a missing or unreadable file (everything is offered again).
    package static func load(path: String) -> CompanionPositions {
        guard let file = try? FileDescriptor.open(path, .readOnly), let bytes = try? file.readAll(limit: 4096),
            case .object(let members)? = try? JSONInput.parse(bytes),
            case .number(let acknowledged)? = members["acknowledged"], let acknowledgedValue = UInt64(acknowledged),
            case .number(let received)? = members["received"], let receivedValue = UInt64(received)
        else { return CompanionPositions() }
        return CompanionPositions(acknowledged: acknowledgedValue, received: receivedValue)
    }

    package func save(path: String, durable: Bool = false) throws(BrokerError) {
        let text = "{\"acknowledged\":\(acknowledged),\"received\":\(received)}\n"
        do { try AtomicFile.replace(path: path, bytes: Array(text.utf8), mode: ContainerLayout.fileMode, durable: durable) } catch {
            throw .io(path: path, operation: "write", errno: error)
        }
    }
}

/// What `entitlementctl companion` prints, kept by the daemon in `companion-status.json` (written
/// atomically, without fsync, whenever it changes and at most once a second for `lastSyncAt`).
/// `connected`: an authenticated session is up; `peer`: its address; `lastSyncAt`: the last
/// authenticated exchange; `pendingOut`: events accepted here the peer has not acknowledged;
/// `pendingIn`: events received from the peer not yet applied here.
package struct CompanionStatus: Sendable, Equatable {
    package var connected = false
    package var peer: String?
    package var lastSyncAt: Date?
    package var pendingOut: UInt64 = 0
    package var pendingIn: UInt64 = 0

    package init() {}

    /// The status as the contract's JSON object.
    package var json: String {
        let object: [String: JSONValue] = [
            "connected": .bool(connected), "peer": peer.map(JSONValue.string) ?? .null,
            "lastSyncAt": lastSyncAt.map { JSONValue.string(ISO8601.string(from: $0)) } ?? .null,
            "pendingOut": .int(Int64(clamping: pendingOut)), "pendingIn": .int(Int64(clamping: pendingIn)),
        ]
        return JSONValue.object(object).serialized
    }

    package func save(path: String) throws(Errno) {
        try AtomicFile.replace(path: path, bytes: Array((json + "\n").utf8), mode: ContainerLayout.fileMode, durable: false)
    }

    /// The status in `path`, or nil when there is none or it is not the daemon's JSON.
    package static func load(path: String) -> CompanionStatus? {
        guard let file = try? FileDescriptor.open(path, .readOnly), let bytes = try? file.readAll(limit: 4096),
            case .object(let members)? = try? JSONInput.parse(bytes), case .bool(let connected)? = members["connected"]
        else { return nil }
        var status = CompanionStatus()
        status.connected = connected
        if case .string(let peer)? = members["peer"] { status.peer = peer }
        if case .string(let text)? = members["lastSyncAt"] { status.lastSyncAt = ISO8601.date(from: text) }
        if case .number(let text)? = members["pendingOut"] { status.pendingOut = UInt64(text) ?? 0 }
        if case .number(let text)? = members["pendingIn"] { status.pendingIn = UInt64(text) ?? 0 }
        return status
    }
}
