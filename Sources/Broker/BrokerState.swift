import EntitlementModel
import FoundationEssentials
import SystemShims

/// What the daemon must remember across restarts beyond the journal: the last generation it
/// published (so generations keep increasing even if the shared file is lost) and the last
/// issue time (so a clock wound back never moves evaluation backwards).
package struct BrokerState: Sendable, Hashable, Codable {
    package var generation: Int64
    /// Milliseconds since 1970 of the last published snapshot's `issuedAt`.
    package var issuedAtMilliseconds: Double
    /// The boot clock when `issuedAt` was issued (``EntitlementSnapshot/issuedIn``); absent in
    /// files written before it was recorded, and when the boot clock could not be read.
    package var bootId: String?
    package var bootTimeNanoseconds: Int64?

    package init(generation: Int64 = 0, issuedAt: Date = .distantPast, issuedIn: BootInstant? = nil) {
        self.generation = generation
        self.issuedAtMilliseconds = issuedAt == .distantPast ? 0 : issuedAt.timeIntervalSince1970 * 1000
        self.issuedIn = issuedIn
    }

    package var issuedAt: Date { Date(timeIntervalSince1970: issuedAtMilliseconds / 1000) }

    /// The boot reading stored with `issuedAt`, or `nil` (none, or not a valid one).
    package var issuedIn: BootInstant? {
        get { bootId.flatMap { id in bootTimeNanoseconds.flatMap { BootInstant(bootID: id, nanosecondsSinceBoot: $0) } } }
        set {
            bootId = newValue?.bootID
            bootTimeNanoseconds = newValue?.nanosecondsSinceBoot
        }
    }

    /// The earliest instant the daemon may evaluate at, given the boot clock `boot` now:
    /// ``BootInstant/floor(issuedAt:issued:current:)`` of the last issue, so a wall clock set
    /// back while the daemon was stopped (or running) never moves evaluation backwards, and on
    /// the same boot not even to the last issue time.
    package func evaluationFloor(boot: BootInstant?) -> Date {
        BootInstant.floor(issuedAt: issuedAt, issued: issuedIn, current: boot)
    }

    /// Loads the state file; a missing file is the initial state, a corrupt one an error.
    package static func load(path: String) throws(BrokerError) -> BrokerState {
        guard (try? fileStatus(atPath: path, followSymlinks: false)) != nil else { return BrokerState() }
        let bytes = try SecureFile.read(path: path, maximumSize: 4096)
        do {
            let state = try JSONDecoder().decode(BrokerState.self, from: Data(bytes))
            guard state.generation >= 0, state.issuedAtMilliseconds.isFinite else { throw BrokerError.badInput("") }
            return state
        } catch {
            throw .badInput("\(path): not a valid broker state file")
        }
    }

    /// Atomically replaces the state file (temporary file and rename), with `fsync`s only when
    /// `durable`. The daemon saves it without: see ``DaemonCore`` for why the fsynced shared
    /// file is the durable record of the generation.
    package func save(path: String, durable: Bool) throws(BrokerError) {
        let url = URL(fileURLWithPath: path)
        let bytes: [UInt8]
        do { bytes = Array(try JSONEncoder().encode(self)) } catch { throw .badInput("cannot encode broker state") }
        do {
            try AtomicFile.replace(
                directory: url.deletingLastPathComponent().path, name: url.lastPathComponent, bytes: bytes,
                mode: ContainerLayout.fileMode, durable: durable)
        } catch {
            throw .io(path: path, operation: "write", errno: error)
        }
    }
}
