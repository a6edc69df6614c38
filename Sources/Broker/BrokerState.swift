import EntitlementDefaults
import Entitlements
import StoreKitFormats
import FoundationEssentials
import SystemShims

/// What the daemon must remember across restarts beyond the journal: the history its snapshots
/// belong to and the last generation it published in it (so generations keep increasing even if
/// the shared file is lost) and the last issue time with its boot reading (the daemon's
/// ``TimeAnchor``).
package struct BrokerState: Sendable, Hashable {
    package var generation: Int64
    /// ``EntitlementSnapshot/historyID`` of every snapshot the daemon publishes; absent in files
    /// written before histories were named (the daemon then names one, ``newHistoryID()``).
    package var historyID: String?
    /// Milliseconds since 1970 of the last published snapshot's `issuedAt`.
    package var issuedAtMilliseconds: Double
    /// The boot clock when `issuedAt` was issued (``EntitlementSnapshot/issuedIn``); absent in
    /// files written before it was recorded, and when the boot clock could not be read.
    package var bootId: String?
    package var bootTimeNanoseconds: Int64?
    /// Milliseconds since 1970 of the last published `companionSyncedAt`; absent before the
    /// first sync with the companion.
    package var companionSyncedAtMilliseconds: Double?

    /// ``companionSyncedAtMilliseconds`` as a date.
    package var companionSyncedAt: Date? {
        get { companionSyncedAtMilliseconds.map { Date(timeIntervalSince1970: $0 / 1000) } }
        set { companionSyncedAtMilliseconds = newValue.map { $0.timeIntervalSince1970 * 1000 } }
    }

    package init(generation: Int64 = 0, issuedAt: Date = .distantPast, issuedIn: BootInstant? = nil, historyID: String? = nil) {
        self.generation = generation
        self.historyID = historyID
        self.issuedAtMilliseconds = issuedAt == .distantPast ? 0 : issuedAt.timeIntervalSince1970 * 1000
        self.issuedIn = issuedIn
    }

    package var issuedAt: Date { Date(timeIntervalSince1970: issuedAtMilliseconds / 1000) }

    /// A new history id: 128 random bits (the system's random generator) as 32 hexadecimal digits.
    package static func newHistoryID() -> String {
        var generator = SystemRandomNumberGenerator()
        return [generator.next() as UInt64, generator.next() as UInt64].map { word in
            let digits = String(word, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }

    /// The boot reading stored with `issuedAt`, or `nil` (none, or not a valid one).
    package var issuedIn: BootInstant? {
        get { bootId.flatMap { id in bootTimeNanoseconds.flatMap { BootInstant(bootID: id, nanosecondsSinceBoot: $0) } } }
        set {
            bootId = newValue?.bootID
            bootTimeNanoseconds = newValue?.nanosecondsSinceBoot
        }
    }

    /// The daemon's time (``TimeAnchor``): the last issue time with the boot reading it was
    /// issued in. ``TimeAnchor/justifiedNow(wallClock:boot:)`` of it is the instant the daemon
    /// evaluates and publishes at, so a wall clock set back while the daemon was stopped (or
    /// running) never moves evaluation backwards, and one that ran ahead is not published.
    package var anchor: TimeAnchor {
        get { TimeAnchor(instant: issuedAt, boot: issuedIn) }
        set {
            issuedAtMilliseconds = newValue.instant == .distantPast ? 0 : newValue.instant.timeIntervalSince1970 * 1000
            issuedIn = newValue.boot
        }
    }

    /// Loads the state file; a missing file is the initial state, a corrupt one an error.
    package static func load(path: String) throws(BrokerError) -> BrokerState {
        guard (try? fileStatus(atPath: path, followSymlinks: false)) != nil else { return BrokerState() }
        let bytes = try SecureFile.read(path: path, maximumSize: 4096)
        guard let state = decode(bytes) else { throw .badInput("\(path): not a valid broker state file") }
        return state
    }

    /// Atomically replaces the state file (temporary file and rename), with `fsync`s only when
    /// `durable`. The daemon saves it without: see ``DaemonCore`` for why the fsynced shared
    /// file is the durable record of the generation.
    package func save(path: String, durable: Bool) throws(BrokerError) {
        do {
            try AtomicFile.replace(path: path, bytes: Array(encoded.serialized.utf8), mode: ContainerLayout.fileMode, durable: durable)
        } catch {
            throw .io(path: path, operation: "write", errno: error)
        }
    }

    /// The file's JSON object: `generation` (an integer), `issuedAtMilliseconds`, the boot
    /// reading's `bootId` and `bootTimeNanoseconds` when there is one, `historyId` when named, and
    /// `companionSyncedAtMilliseconds` after the first sync.
    var encoded: JSONValue {
        var object: [String: JSONValue] = ["generation": .int(generation), "issuedAtMilliseconds": .double(issuedAtMilliseconds)]
        if let historyID { object["historyId"] = .string(historyID) }
        if let bootId { object["bootId"] = .string(bootId) }
        if let bootTimeNanoseconds { object["bootTimeNanoseconds"] = .int(bootTimeNanoseconds) }
        if let companionSyncedAtMilliseconds { object["companionSyncedAtMilliseconds"] = .double(companionSyncedAtMilliseconds) }
        return .object(object)
    }

    /// The state in `bytes`, or `nil` unless they are one JSON object with an integer
    /// `generation` ≥ 0, a finite number `issuedAtMilliseconds`, and `bootId` (a string) and
    /// `bootTimeNanoseconds` (an integer) each absent or null, and `historyId` absent, null or a
    /// string ``EntitlementSnapshot/isValid(historyID:)`` accepts, and `companionSyncedAtMilliseconds`
    /// absent, null or a number of a publishable instant. Other members are ignored.
    static func decode(_ bytes: [UInt8]) -> BrokerState? {
        guard case .object(let members)? = try? JSONInput.parse(bytes),
            case .number(let generationText)? = members["generation"], let generation = Int64(generationText), generation >= 0,
            case .number(let issuedText)? = members["issuedAtMilliseconds"], let issued = Double(issuedText), issued.isFinite
        else { return nil }
        var state = BrokerState(generation: generation)
        state.issuedAtMilliseconds = issued
        switch members["bootId"] {
        case nil, .null?: break
        case .string(let id)?: state.bootId = id
        default: return nil
        }
        switch members["historyId"] {
        case nil, .null?: break
        case .string(let id)? where EntitlementSnapshot.isValid(historyID: id): state.historyID = id
        default: return nil
        }
        switch members["companionSyncedAtMilliseconds"] {
        case nil, .null?: break
        case .number(let text)?:
            guard let milliseconds = Double(text), milliseconds.isFinite,
                TimeAnchor.isPublishable(Date(timeIntervalSince1970: milliseconds / 1000))
            else { return nil }
            state.companionSyncedAtMilliseconds = milliseconds
        default: return nil
        }
        switch members["bootTimeNanoseconds"] {
        case nil, .null?: break
        case .number(let text)?:
            guard let nanoseconds = Int64(text) else { return nil }
            state.bootTimeNanoseconds = nanoseconds
        default: return nil
        }
        return state
    }
}
