import FoundationEssentials
import ServiceRuntime

/// The daemon's recurring work: drain the inbox while files may be queued, then publish what is
/// due. A try that fails (disk full, an I/O error, a read-only remount, a vanished directory)
/// is tried again after a capped backoff (``RetryBackoff``: at most 5 s between tries) until it
/// succeeds, so acknowledged events wait out a fault and are applied with no new event and no
/// restart. Each failed try is one log line; the recovery is one more. Every run also gives the
/// daemon's optional work its turn (``DaemonCore/upkeep()``: a failed compaction, on a back-off
/// of its own), whatever the drain and publish did.
struct RetryingWork {
    private let core: DaemonCore
    private let log: @Sendable (String) -> Void
    private var backoff = RetryBackoff()
    /// Whether inbox files may be waiting: set at start and by every inbox wake-up, cleared only
    /// by a drain that succeeded.
    private var drainNeeded = true
    /// When the failed work is due again (monotonic, so a wall clock set back cannot hold it
    /// off); `nil` while nothing has failed.
    private var retryAt: ContinuousClock.Instant?
    private var failingSince: ContinuousClock.Instant?
    /// The next transition the last successful publish reported.
    private var nextTransition: Date?
    /// Whether a snapshot has been published since the daemon started (the first publish is
    /// forced, so readers see a new generation from this daemon even when nothing changed).
    private(set) var hasPublished = false

    init(core: DaemonCore, log: @escaping @Sendable (String) -> Void) {
        self.core = core
        self.log = log
    }

    /// Notes that inbox files may have arrived; the next ``run()`` drains them.
    mutating func inboxChanged() { drainNeeded = true }

    /// Publishes the start-up snapshot (until one succeeded), drains (if needed) and publishes,
    /// unless a retry is scheduled for later: then it waits for that, whatever woke the daemon (a
    /// new inbox file joins the retry; trying at once would defeat the backoff). The last publish
    /// runs even when the drain failed, so a transition (an expiry, a trial end) is still
    /// published while a full disk holds queued events back.
    mutating func run() {
        defer { core.upkeep() }
        let clock = ContinuousClock()
        if let retryAt, clock.now < retryAt { return }
        var failure: (step: String, error: BrokerError)?
        func attempt(_ step: String, _ body: () throws(BrokerError) -> Void) {
            do { try body() } catch { failure = failure ?? (step, error) }
        }
        if !hasPublished {
            attempt("publish") { () throws(BrokerError) in
                try core.publish(now: Date(), force: true)
                hasPublished = true
            }
        }
        if drainNeeded {
            attempt("drain") { () throws(BrokerError) in
                _ = try core.drainInbox()
                drainNeeded = false
            }
        }
        attempt("publish") { () throws(BrokerError) in nextTransition = try core.publish(now: Date()) }
        if let failure {
            let delay = backoff.failed()
            if failingSince == nil { failingSince = clock.now }
            retryAt = clock.now.advanced(by: .seconds(delay))
            log("\(failure.step) failed (attempt \(backoff.failures)): \(failure.error); retrying in \(RetryBackoff.format(delay)) s")
            return
        }
        let failures = backoff.succeeded()
        if failures > 0, let failingSince {
            let attempts = failures == 1 ? "attempt" : "attempts"
            log("recovered after \(failures) failed \(attempts) in \(RetryBackoff.format(Self.seconds(clock.now - failingSince))) s: queued events applied and published")
        }
        retryAt = nil
        failingSince = nil
    }

    /// Seconds from now until ``run()`` has work: the retry while one is scheduled (it also
    /// publishes any transition that fell due meanwhile, at most 5 s late), else the next
    /// transition, or the core's own upkeep if sooner; `nil` when nothing is due.
    var secondsUntilDue: Double? {
        let now = ContinuousClock.now
        var due: [Double] = []
        if let retryAt {
            // The retry publishes whatever is due by then.
            due.append(Self.seconds(retryAt - now))
        } else {
            if let nextTransition { due.append(core.secondsUntil(nextTransition)) }
        }
        if let upkeep = core.upkeepDue { due.append(Self.seconds(upkeep - now)) }
        return due.min()
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
