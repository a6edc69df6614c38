import Entitlements
import StoreKitFormats
import FoundationEssentials
import EntitlementDefaults
import ServiceRuntime
import SharedDefaults
import SystemShims

/// The daemon's state and its three operations (drain the inbox, publish, reload the catalog),
/// free of any concurrency: ``EntitlementDaemon`` calls it from one task only, so an event in
/// hand is always finished before a signal is looked at.
final class DaemonCore {
    let configuration: DaemonConfiguration
    private(set) var catalog: Catalog
    private var engine: EntitlementEngine
    private var facts = FactStore()
    /// Journaled event lines the catalog's signature policy does not read
    /// (``JournalReplay/Outcome/unread``): kept, and carried into every checkpoint, until a
    /// catalog that reads them is loaded.
    private var unread: [String] = [] {
        // Set at start, at a reload and when a drain keeps lines: rarely, so rebuilt whole.
        didSet { unreadLines = Set(unread) }
    }
    /// The lines of ``unread``, to keep each once however often it is queued.
    private var unreadLines: Set<String> = []
    private let journal: Journal
    private let inbox: Inbox
    private let store: SharedDefaults
    private var state: BrokerState
    private var published: (
        entitlements: [String: EntitlementStatus], nextTransition: Date?, unmappedProducts: [String],
        introOfferEligibility: [String: Bool], flags: [String: Bool]
    )?
    /// The last sync with the companion (``noteCompanionSync(at:)``), recovered at start from
    /// the published snapshot or state.json; `nil` before the first one.
    private var companionSyncedAt: Date?
    /// The ``companionSyncedAt`` of the last snapshot published.
    private var publishedCompanionSyncedAt: Date?
    /// The unmapped products already named in the log (each once per run).
    private var loggedUnmappedProducts: Set<String> = []
    /// The events offered to the companion (with `--companion-listen` or `--companion-connect`).
    let outbox: CompanionOutbox?
    /// Bumped whenever `facts` or the catalog change, so ``publish(now:force:)`` can tell that
    /// an evaluation would repeat the last one.
    private var inputsVersion = 0
    /// Whether the daemon's time was moved back since the last publish, which must then publish
    /// (``reanchor(by:)``) even when no status changed.
    private var reanchored = false
    /// The inputs version last evaluated and the next transition that evaluation reported.
    private var lastEvaluation: (inputsVersion: Int, nextTransition: Date?)?
    /// Lines applied in memory whose journal records are written but not yet known to be on
    /// disk: the journal's `fsync` is running on its own thread (`sync`), or it failed (`nil`)
    /// and the lines must be written again. Settled (``settleJournal()``) before anything that
    /// reflects them is published, their inbox files are deleted, or more is appended.
    private var unsynced: (lines: [String], sync: Journal.PendingSync?)?

    private var log: @Sendable (String) -> Void { configuration.log }
    private var layout: ContainerLayout { configuration.layout }

    /// Loads the catalog, replays the journal and recovers the generation and clock floors.
    init(configuration: DaemonConfiguration) throws(BrokerError) {
        self.configuration = configuration
        let layout = configuration.layout
        catalog = try Self.loadCatalog(configuration.catalogPath)
        engine = EntitlementEngine(catalog: catalog)
        inbox = Inbox(directory: layout.inboxDirectory)
        try inbox.prepare()
        journal = Journal(path: layout.journalPath)
        store = SharedDefaults(
            suiteName: layout.group, container: layout.container, options: .init(durable: configuration.durable))
        var swept = 0
        for directory in [layout.preferencesDirectory, layout.brokerDirectory, layout.inboxDirectory] {
            swept += AtomicFile.removeStaleTemporaryFiles(in: directory)
        }
        if swept > 0 { configuration.log("removed \(swept) temporary files left by writers that died mid-write") }
        // Generation and clock floors: the larger of state.json and the shared file. Every
        // publish fsyncs the shared file (and its directory) *before* state.json is written, and
        // state.json is written without fsync, so after a crash or power loss the shared file
        // always holds the last generation published, and state.json matters only when the
        // shared file was removed or refused. A state.json torn by a power loss (possible only
        // because it is not fsynced) is therefore replaced by the shared file's floors when that
        // file is readable; with neither, starting would risk reusing a generation, so it fails.
        let reader = SnapshotReader(suiteName: layout.group, container: layout.container)
        let current = reader.refresh().snapshot
        do {
            state = try BrokerState.load(path: layout.statePath)
        } catch {
            guard let current else { throw error }
            configuration.log("\(error); recovering the generation floor from the published snapshot (\(current.generation))")
            state = BrokerState()
        }
        if let current, current.generation > state.generation { state.generation = current.generation }
        // The history every snapshot names: state.json's, else the published snapshot's, else a
        // new one (a fresh or recreated container, or files from before histories were named),
        // so that readers accept its generations counting from 1 again.
        if state.historyID == nil { state.historyID = current?.historyID ?? BrokerState.newHistoryID() }
        // The last sync with the companion: the later of both records, so a restart never turns
        // a watch that synced into one that never did (which would judge without a bound).
        companionSyncedAt = [state.companionSyncedAt, current?.companionSyncedAt].compactMap { $0 }.max()
        publishedCompanionSyncedAt = current?.companionSyncedAt
        // The daemon's time: the later floor of both records, each kept with the boot reading it
        // was issued in, so a wall clock set back while the daemon was stopped cannot move its
        // first evaluation (and the snapshot it publishes) back before what readers already had
        // to assume, and one that ran ahead since is judged against that boot's clock.
        let boot = BootInstant.current()
        if let current {
            let published = TimeAnchor(instant: current.issuedAt, boot: current.issuedIn)
            if published.floor(boot: boot) > state.anchor.floor(boot: boot) { state.anchor = published }
        }
        if state.issuedAtMilliseconds != 0, !TimeAnchor.isPublishable(state.anchor.instant) {
            configuration.log("clock: \(layout.statePath) holds an issue time no reader accepts (\(state.issuedAtMilliseconds) ms since 1970); not a floor")
            state.anchor = TimeAnchor(instant: .distantPast, boot: nil)
        }
        let contents = try journal.open(inbox: inbox)
        if configuration.companion != nil {
            let positions = CompanionPositions.load(path: layout.companionPositionsPath)
            let seedCatalog = catalog, journalPath = layout.journalPath, log = configuration.log
            outbox = try CompanionOutbox(
                path: layout.companionOutboxPath, acknowledged: positions.acknowledged,
                seed: { CompanionSeed.lines(of: contents.records, format: contents.format, path: journalPath, catalog: seedCatalog, log: log) },
                log: configuration.log)
        } else {
            outbox = nil
        }
        if contents.cutTornTail { log("journal: cut off a torn last record; its event is still queued in the inbox") }
        if contents.format == .unframed { log("journal: rewrote \(layout.journalPath) as framed, checksummed records") }
        let outcome = try JournalReplay.replay(contents.records, format: contents.format, path: layout.journalPath, catalog: catalog)
        facts = outcome.facts
        unread = outcome.unread
        let replayed = outcome.replayed
        if !unread.isEmpty {
            log("journal: kept \(unread.count) event lines the catalog's signature policy does not read; they count again under a catalog that reads them")
        }
        let withheld = facts.withheldOriginalTransactionIds
        if !withheld.isEmpty {
            log(
                "journal: withheld \(withheld.count) subscription\(withheld.count == 1 ? "" : "s") whose records were lost in a repair"
                    + " (original transactions \(withheld.prefix(20).joined(separator: ", "))\(withheld.count > 20 ? ", ..." : ""))"
                    + " until Apple signs a newer version")
        }
        // Where the checkpoint the journal begins with ends: after the last record its start counts.
        if let start = contents.records.first, start.kind == .checkpointStart, let counted = JournalCheckpoint.count(start.payload),
            let last = contents.records.last(where: { $0.index <= start.index + counted })
        {
            checkpointSize = last.offset + JournalRecord.encode(last.kind, last.payload).count
        }
        // An unframed journal takes no framed appends, a checkpoint of version 1 does not say
        // its length, and text or binary fact records are an earlier form: each is replaced by a
        // checkpoint of fact records now. A compaction that fails here (a full disk) does not keep
        // the daemon from serving: see ``compactIfDue(_:)``.
        let outdated = contents.format == .unframed || (contents.version == 1 && !contents.records.isEmpty)
            || contents.records.contains { [.transaction, .renewalInfo, .checkpointNames, .checkpointTransaction, .checkpointRenewalInfo].contains($0.kind) }
        compactIfDue(outdated ? .always : .grown)
        // Replay freed many small buffers (decoded lines and facts) that the heap would
        // otherwise keep resident for the daemon's life: hand them back (glibc's `malloc_trim`).
        _ = cLibraryFunction(named: "malloc_trim", as: (@convention(c) (Int) -> Int32).self)?(0)
        log("started: \(replayed) journaled facts, generation \(state.generation), catalog \(configuration.catalogPath)")
    }

    /// The journal is compacted once it is larger than this (bytes) and the records appended
    /// since the last checkpoint are more than a ``tailDivisor``th of it: a restart then decodes
    /// few event lines (each costs several times what a checkpoint record of the same size does),
    /// and each compaction is paid for by a share of the bytes it writes appended before it.
    static let compactionFloor = 1 << 20
    static let tailDivisor = 4
    private var checkpointSize = 0

    enum CompactionTrigger { case always, grown }

    /// A compaction that failed: the trigger to try again with, and when (monotonic).
    private var failedCompaction: (trigger: CompactionTrigger, retryAt: ContinuousClock.Instant)?
    /// Back-off between tries of a failed compaction, in seconds.
    private var compactionBackoff = RetryBackoff(initialDelay: 1, maximumDelay: 60)

    /// Compacts when `trigger` says so, unless a failed compaction is waiting out its back-off.
    /// Compaction only saves space and start-up time, so its failure (disk full, an I/O error)
    /// stops nothing: the old journal stays in place and is still appended to, the failure is
    /// logged once (not at every try) and the compaction is tried again with back-off
    /// (``upkeep()``) until it succeeds, which its own log line reports.
    private func compactIfDue(_ trigger: CompactionTrigger) {
        var trigger = trigger
        if let failed = failedCompaction {
            guard ContinuousClock.now >= failed.retryAt else { return }
            if case .always = failed.trigger { trigger = .always }
        }
        do {
            try compact(when: trigger)
            failedCompaction = nil
            _ = compactionBackoff.succeeded()
        } catch {
            let delay = compactionBackoff.failed()
            failedCompaction = (trigger, ContinuousClock.now.advanced(by: .seconds(delay)))
            if compactionBackoff.failures == 1 {
                log("journal compaction failed, serving from the journal as it is and trying again with back-off: \(error)")
            }
        }
    }

    /// Replaces the journal with a checkpoint of the facts that still matter, and drops from
    /// memory what the checkpoint drops (``FactStore/compact()``), so neither grows with history.
    private func compact(when trigger: CompactionTrigger) throws(BrokerError) {
        if case .grown = trigger, journal.size <= max(Self.compactionFloor, checkpointSize + checkpointSize / Self.tailDivisor) { return }
        try settleJournal()
        facts.compact()
        let records = JournalReplay.checkpoint(of: facts, carrying: unread)
        try journal.rewrite(records)
        checkpointSize = journal.size
        // Beside the facts: the start, the summary and the lines carried.
        let carried = unread.isEmpty ? "" : " and \(unread.count) event lines the catalog does not read"
        log("compacted the journal: \(records.count - 2 - unread.count) facts\(carried) kept, \(journal.size) bytes")
    }

    /// The catalog at `path`: a catalog refused for its contents is ``BrokerError/badInput(_:)``
    /// (65), one that could not be read (`EMFILE`, `EIO`) ``BrokerError/io(path:operation:errno:)`` (75).
    static func loadCatalog(_ path: String) throws(BrokerError) -> Catalog {
        do { return try Catalog.load(path: path) } catch {
            if let code = error.systemError { throw .io(path: error.file, operation: "read", errno: Errno(rawValue: code)) }
            throw .badInput("\(error)")
        }
    }

    /// Re-reads the catalog; on error keeps the old one and says why.
    func reloadCatalog() {
        do {
            catalog = try Self.loadCatalog(configuration.catalogPath)
            engine = EntitlementEngine(catalog: catalog)
            inputsVersion += 1
            log("SIGHUP: catalog reloaded from \(configuration.catalogPath)")
            // Journaled lines the previous catalog did not read count from now on if this one
            // reads them, as a restart would replay them.
            let before = unread.count
            unread.removeAll { line in
                guard case .read(let events) = try? KeptLine.reading(line.utf8, signatures: catalog.signatures) else { return false }
                facts.insert(contentsOf: events)
                return true
            }
            if unread.count < before { log("journal: \(before - unread.count) kept event lines are read under this catalog") }
        } catch {
            log("SIGHUP: kept the previous catalog: \(error)")
        }
    }

    /// Most inbox files applied per journal commit: a large backlog is worked off in bounded
    /// steps, each durable on its own, so a daemon killed again and again still makes progress.
    static let filesPerCommit = 256
    /// A step also ends after the file that brings it to this many events (at least one file per
    /// step): 256 files of 100 events held 25,600 decoded events at once, and the daemon spent a
    /// fifth of its time growing and page-faulting the buffers that held them.
    static let eventsPerCommit = 4096
    /// The first step after a start is this small and each following step doubles (up to
    /// ``filesPerCommit``), so a daemon that keeps dying early still commits something each life.
    static let firstStepFiles = 8
    private var stepFiles = DaemonCore.firstStepFiles
    /// Tries a queued file that cannot be read gets (one per drain) before it is moved to
    /// `rejected/`; a failure for want of descriptors or memory is not the file's and counts none.
    static let maximumReadAttempts = 5
    /// Failed reads of each queued file that could not be read, counted across drains.
    private var readFailures: [String: Int] = [:]

    /// Applies every queued inbox file: decode, validate, journal (one fsync per step of at most
    /// ``filesPerCommit`` files or about ``eventsPerCommit`` events), publish, then delete. Kept
    /// means kept: a line is read as replay reads it (``KeptLine``), so one of another app or
    /// environment, or one the signature policy does not read, is journaled and kept, not
    /// refused. A file that is refused (not a regular file, not ours, too large, a line no
    /// catalog could read) is moved to `rejected/` with its reason; other files are unaffected. A file that cannot be read (a
    /// failing system call: `EACCES`, `EIO`) is passed over, so the files behind it are applied,
    /// and the drain then throws to be retried; after ``maximumReadAttempts`` such tries it is
    /// moved to `rejected/` too. Facts change in memory only once their journal records are written,
    /// so a failed append (disk full) applies nothing. The step's journal fsync runs on its own
    /// thread while the publish writes and fsyncs the snapshot, and the publish renames the
    /// snapshot into place only once that fsync succeeded (``settleJournal()``), so nothing
    /// published is missing from the journal on disk, and a restart never forgets it. A file
    /// is deleted only after a publish that reflects it. On a thrown error the step's files stay
    /// queued, and calling this again (the daemon retries with a backoff) resumes where it failed.
    /// Returns whether any fact changed.
    func drainInbox() throws(BrokerError) -> Bool {
        var changedAny = false
        // Each step's new events, kept apart until the journal holds them; `facts` itself is
        // never copied (a copy per step made a long run quadratic). One set of buffers serves
        // every step of this drain and is freed when it ends.
        var step = Step()
        // Files are decoded (and their signatures verified) on every core, a few ahead; each
        // result is still taken here, one file at a time, in inbox order.
        var decoder = InboxDecoder(inbox: inbox, catalog: catalog)
        // Files this drain could not read, and the first such failure, thrown once the rest is applied.
        var passedOver: Set<String> = []
        var readFailure: BrokerError?
        while true {
            var queued = try inbox.pending()
            if !passedOver.isEmpty { queued.removeAll { passedOver.contains($0) } }
            let names = queued.prefix(stepFiles)
            stepFiles = min(stepFiles * 2, Self.filesPerCommit)
            guard !names.isEmpty else {
                readFailures = readFailures.filter { passedOver.contains($0.key) }
                if let readFailure { throw readFailure }
                return changedAny
            }
            step.reset()
            for (position, name) in zip(names.indices, names) where step.eventCount < Self.eventsPerCommit {
                let decoded: [EventLine.Decoded]
                do { decoded = try decoder.decoded(name, following: names[(position + 1)...]).get() } catch {
                    switch error {
                    case .badInput:
                        log("inbox: refused \(name): \(error)")
                        try inbox.quarantine(name, into: layout.rejectedDirectory, reason: "\(error)", durable: configuration.durable)
                    case .io(_, _, let errno) where errno == .noSuchFileOrDirectory:
                        // Removed since it was listed: nothing left to apply.
                        break
                    default:
                        if try !setAsideAfterRepeatedFailures(name, error) {
                            passedOver.insert(name)
                            readFailure = readFailure ?? error
                        }
                    }
                    continue
                }
                readFailures[name] = nil
                let offered = outbox != nil && !Inbox.isFromPeer(name)
                for kept in decoded {
                    guard kept.isRead else {
                        // Kept as replay keeps it (``KeptLine``): journaled once, applied by a catalog that reads it.
                        if !unreadLines.contains(kept.line), step.unreadLines.insert(kept.line).inserted {
                            step.unread.append(kept.line)
                            step.accepted.append(kept.line)
                            if offered { step.offered.append(kept.line) }
                        }
                        step.eventCount += kept.events.count
                        continue
                    }
                    var lineChanged = false
                    for event in kept.events where step.admit(event, facts: facts) { lineChanged = true }
                    if lineChanged {
                        step.accepted.append(kept.line)
                        if offered { step.offered.append(kept.line) }
                    }
                    step.eventCount += kept.events.count
                }
                step.done.append(name)
            }
            // The journal's fsync runs on its own thread while the publish below writes the
            // snapshot; the publish renames it into place only once the journal is on disk.
            try settleJournal()
            if !step.accepted.isEmpty, !journal.acceptsAppends {
                // An unframed or version 1 journal takes appends only once rewritten: this
                // compaction is not optional.
                try compact(when: .always)
                failedCompaction = nil
                _ = compactionBackoff.succeeded()
            }
            // The companion's outbox holds a line before the journal does: an event journaled
            // (and so acknowledged) is always offered; a crash between the two offers it twice.
            try outbox?.append(step.offered, durable: configuration.durable)
            try journal.append(step.accepted, durable: false)
            if configuration.durable, !step.accepted.isEmpty, let sync = try journal.syncInBackground() {
                unsynced = (step.accepted, sync)
            }
            // One log line per step, not per event, so logging (a write(2) each) stays a small part of a drain.
            if !step.done.isEmpty {
                log(
                    "accepted \(step.eventCount) events from \(step.done.count) inbox files"
                        + " (\(step.newEvents.count) new, \(step.eventCount - step.newEvents.count) already known)")
            }
            if !step.unread.isEmpty {
                log("kept \(step.unread.count) event lines the catalog's signature policy does not read; they count under a catalog that reads them")
                unread += step.unread
            }
            let newestSigned = facts.newestSignedDate
            for event in step.newEvents { facts.insert(event) }
            if let signed = facts.newestSignedDate, signed > newestSigned ?? .distantPast { reanchor(by: signed) }
            compactIfDue(.grown)
            if !step.accepted.isEmpty {
                inputsVersion += 1
                changedAny = true
            }
            // A file leaves the inbox only once a published generation reflects it (that is what
            // `ingest --wait` waits for). Called even when this step changed nothing: a retry
            // after a failed publish finds its events already applied, and must publish them
            // before it deletes their files. When nothing is unpublished this returns at once.
            try publish(now: Date())
            try settleJournal()
            attributeToPaywalls(step.newEvents)
            for name in step.done { try inbox.remove(name) }
        }
    }

    /// Counts a failed read of the queued file `name`; at the ``maximumReadAttempts``th (failures
    /// for want of descriptors or memory count none: they are the process's, not the file's)
    /// moves it to `rejected/` with the error as its reason and returns `true`.
    private func setAsideAfterRepeatedFailures(_ name: String, _ error: BrokerError) throws(BrokerError) -> Bool {
        if case .io(_, _, let errno) = error, errno.isResourceShortage { return false }
        let failures = (readFailures[name] ?? 0) + 1
        readFailures[name] = failures
        guard failures >= Self.maximumReadAttempts else { return false }
        readFailures[name] = nil
        let reason = "\(error) (\(failures) tries)"
        log("inbox: refused \(name): \(reason)")
        try inbox.quarantine(name, into: layout.rejectedDirectory, reason: reason, durable: configuration.durable)
        return true
    }

    /// Appends `upgradedFromPaywall` for the journaled purchases that follow a paywall
    /// (``PaywallAttribution``). Analytics never stop a drain: a failure is one log line.
    private func attributeToPaywalls(_ events: [StoreEvent]) {
        let transactions = events.compactMap { event -> StoreTransaction? in
            if case .transaction(let transaction) = event { transaction } else { nil }
        }
        guard !transactions.isEmpty else { return }
        let analytics = PaywallAnalyticsLog(container: layout.container)
        do {
            let upgrades = PaywallAttribution.upgrades(
                for: transactions, catalog: catalog, events: try analytics.events(), journaledAt: Date())
            for upgrade in upgrades {
                try analytics.append(upgrade)
                log("paywall: \(upgrade.feature) upgraded from its paywall")
            }
        } catch {
            log("paywall analytics: \(error)")
        }
    }

    /// Moves the daemon's time back to what a trusted `signedDate` (of an event just accepted,
    /// newer than every one accepted before) shows, when the time ran ahead of the wall clock
    /// (``TimeAnchor/reanchored(signedDate:wallClock:boot:)``); the next publish then carries it,
    /// so readers follow. Every accepted event passed the catalog's signature policy: under
    /// `signatures: required` it is Apple-signed.
    private func reanchor(by signed: Date) {
        let anchor = state.anchor
        guard let moved = anchor.reanchored(signedDate: signed, wallClock: Date(), boot: BootInstant.current()) else { return }
        log("clock: re-anchored at \(ISO8601.string(from: moved.instant)) by a newer signedDate; the time kept had run ahead to \(ISO8601.string(from: anchor.instant))")
        state.anchor = moved
        reanchored = true
    }

    /// Waits until the journal holds every applied event on disk: for the pending `fsync`, and
    /// when it failed (or could not be awaited), appends the same lines again, durably (after a
    /// failed `fsync` the written pages may be gone; a record written twice replays as once).
    private func settleJournal() throws(BrokerError) {
        guard let pending = unsynced else { return }
        if let sync = pending.sync {
            unsynced?.sync = nil
            do {
                try sync.wait()
                unsynced = nil
                return
            } catch {
                log("journal: \(error); writing its last \(pending.lines.count) records again")
            }
        }
        try journal.append(pending.lines, durable: true)
        unsynced = nil
    }

    /// One drain step's work in progress: what it will journal, apply and delete.
    private struct Step {
        /// Lines that change the facts, to journal.
        var accepted: [String] = []
        /// The lines of ``accepted`` from this side's own ingest, to offer the companion.
        var offered: [String] = []
        /// Inbox files fully read (to delete once the journal holds their lines).
        var done: [String] = []
        /// Events read, new or not.
        var eventCount = 0
        /// Lines the catalog's signature policy does not read, to journal and keep (also in ``accepted``).
        var unread: [String] = []
        /// The lines of ``unread``, each kept once.
        var unreadLines: Set<String> = []
        /// Events that change the facts, in order, to apply once journaled.
        var newEvents: [StoreEvent] = []
        /// Position in ``newEvents`` of the newest version of each transaction and renewal info.
        private var transactionVersions: [String: Int] = [:]
        private var renewalVersions: [String: Int] = [:]
        private var appTransactionVersions: [String: Int] = [:]
        private var grantVersions: [String: Int] = [:]

        /// Empties the step for the next one, keeping its buffers.
        mutating func reset() {
            accepted.removeAll(keepingCapacity: true)
            offered.removeAll(keepingCapacity: true)
            done.removeAll(keepingCapacity: true)
            unread.removeAll(keepingCapacity: true)
            unreadLines.removeAll(keepingCapacity: true)
            eventCount = 0
            newEvents.removeAll(keepingCapacity: true)
            transactionVersions.removeAll(keepingCapacity: true)
            renewalVersions.removeAll(keepingCapacity: true)
            appTransactionVersions.removeAll(keepingCapacity: true)
            grantVersions.removeAll(keepingCapacity: true)
        }

        /// Whether `event` would change `facts` as they stand after this step's earlier events;
        /// if so it is queued in ``newEvents``. Decided by ``FactStore/supersedes(_:_:)``, the
        /// rule ``FactStore/insert(_:)`` applies, against the version already known for the same
        /// id; an id known to neither is new. Lookups are by id (O(1)): a whole-store dictionary
        /// per event once made every event cost O(facts held) and a run quadratic.
        mutating func admit(_ event: StoreEvent, facts: FactStore) -> Bool {
            let held: StoreEvent?
            switch event {
            case .transaction(let transaction):
                let id = transaction.transactionId
                held = transactionVersions[id].map { newEvents[$0] } ?? facts.transaction(id: id).map(StoreEvent.transaction)
            case .renewalInfo(let info):
                let original = info.originalTransactionId
                held = renewalVersions[original].map { newEvents[$0] } ?? facts.renewalInfo(original: original).map(StoreEvent.renewalInfo)
            case .appTransaction(let app):
                let id = app.appTransactionId
                held = appTransactionVersions[id].map { newEvents[$0] } ?? facts.appTransactions[id].map(StoreEvent.appTransaction)
            case .grant(let grant):
                held = grantVersions[grant.grantId].map { newEvents[$0] } ?? facts.grants[grant.grantId].map(StoreEvent.grant)
            }
            if let held, !FactStore.supersedes(event, held) { return false }
            switch event {
            case .transaction(let transaction): transactionVersions[transaction.transactionId] = newEvents.count
            case .renewalInfo(let info): renewalVersions[info.originalTransactionId] = newEvents.count
            case .appTransaction(let app): appTransactionVersions[app.appTransactionId] = newEvents.count
            case .grant(let grant): grantVersions[grant.grantId] = newEvents.count
            }
            newEvents.append(event)
            return true
        }
    }

    /// Evaluates at the instant the daemon can justify now (``TimeAnchor/justifiedNow(wallClock:boot:)``
    /// of the wall clock `now`) and publishes a new generation if any status or the next
    /// transition changed, the time was re-anchored, or `force`. Returns the next transition to
    /// wake up for; ``secondsUntil(_:)`` says how far off it is.
    /// - Throws: ``BrokerError/store(_:)`` (retried) when that instant is one no reader accepts.
    @discardableResult
    func publish(now: Date, force: Bool = false) throws(BrokerError) -> Date? {
        // Read after `now`: the wall clock was at least `now` when the boot clock read `boot`.
        let boot = BootInstant.current()
        let justified = state.anchor.justifiedNow(wallClock: now, boot: boot)
        // A companion sync the published snapshot is too far behind needs a new generation,
        // however unchanged (``companionSyncIsDue(justified:)``).
        let force = force || companionSyncIsDue(justified: justified)
        // Statuses change only when the facts or the catalog change, or when time reaches the
        // next transition; between those, an evaluation would repeat the published one.
        if !force, !reanchored, published != nil, let lastEvaluation, lastEvaluation.inputsVersion == inputsVersion,
            justified < (lastEvaluation.nextTransition ?? .distantFuture)
        {
            return lastEvaluation.nextTransition
        }
        let result = engine.evaluate(facts, now: justified)
        guard TimeAnchor.isPublishable(result.effectiveNow) else {
            throw .store(
                "cannot publish at \(ISO8601.string(from: result.effectiveNow)) (the clock reads \(ISO8601.string(from: now))):"
                    + " readers accept 2008...2300 only")
        }
        logUnmappedProducts(result.unmappedProducts)
        let flags = catalog.legacyFlags(result.entitlements)
        if !force, !reanchored, let published, published.entitlements == result.entitlements,
            published.nextTransition == result.nextTransition, published.unmappedProducts == result.unmappedProducts,
            published.introOfferEligibility == result.introductoryOfferEligibility, published.flags == flags
        {
            lastEvaluation = (inputsVersion, result.nextTransition)
            return result.nextTransition
        }
        var snapshot = result.snapshot(generation: state.generation + 1)
        snapshot.issuedIn = boot
        snapshot.historyID = state.historyID
        snapshot.device = configuration.device
        // Never later than the issue time, so a clock running ahead cannot extend the watch's trust.
        snapshot.companionSyncedAt = companionSyncedAt.map { min($0, snapshot.issuedAt) }
        // What the snapshot reflects is in the journal, on disk, before the snapshot is renamed
        // into place: the journal's pending fsync overlaps the snapshot's own write and fsync.
        var journalError: BrokerError?
        do {
            try store.publish(snapshot, flags: flags) { () throws(Errno) in
                do throws(BrokerError) { try settleJournal() } catch {
                    journalError = error
                    throw .ioError
                }
            }
        } catch {
            if let journalError { throw journalError }
            throw .store("\(error)")
        }
        state = BrokerState(generation: snapshot.generation, issuedAt: snapshot.issuedAt, issuedIn: boot, historyID: state.historyID)
        state.companionSyncedAt = snapshot.companionSyncedAt
        publishedCompanionSyncedAt = snapshot.companionSyncedAt
        published = (result.entitlements, result.nextTransition, result.unmappedProducts, result.introductoryOfferEligibility, flags)
        reanchored = false
        // Only a published result may be reused: a failed publish is evaluated and retried.
        lastEvaluation = (inputsVersion, result.nextTransition)
        log("published generation \(snapshot.generation): \(Self.describe(snapshot))")
        // Not fsynced (see init): the shared file just fsynced is the durable floor.
        try state.save(path: layout.statePath, durable: false)
        return result.nextTransition
    }

    /// Records an authenticated exchange with the companion (a heartbeat counts) at wall-clock
    /// `instant`, to be published as the snapshot's `companionSyncedAt` by the next
    /// ``publish(now:force:)``: the one the service runs after every event (``RetryingWork``,
    /// which retries a failed publish), so the caller only calls this on the loop's thread. An
    /// instant no reader accepts (outside ``SnapshotSchema/dateRange``) or earlier than the one
    /// recorded is ignored. Not every sync makes a new generation: only the first, and one that
    /// the published instant lags by ``companionSyncRepublishInterval(offlineLimit:)``, so a
    /// watch in range never ages out and heartbeats do not wake every reader.
    func noteCompanionSync(at instant: Date) {
        guard instant.timeIntervalSince1970.isFinite, TimeAnchor.isPublishable(instant) else { return }
        if let companionSyncedAt, companionSyncedAt >= instant { return }
        companionSyncedAt = instant
    }

    /// The last sync with the companion the daemon knows of, published or not; `nil` before the first.
    var lastCompanionSync: Date? { companionSyncedAt }

    /// Whether the recorded companion sync must be published now: it is the first, or the
    /// published one lags it by the republish interval. The sync counts no later than the
    /// daemon's time `justified`, as it is published, so a wall clock running ahead cannot make
    /// every sync a new generation.
    private func companionSyncIsDue(justified: Date) -> Bool {
        guard let companionSyncedAt else { return false }
        guard let publishedCompanionSyncedAt else { return true }
        let lag = min(companionSyncedAt, justified).timeIntervalSince(publishedCompanionSyncedAt)
        return lag >= Self.companionSyncRepublishInterval(offlineLimit: catalog.companionOfflineLimit)
    }

    /// How far the published `companionSyncedAt` may lag the last sync before a new generation
    /// carries it: a tenth of the offline limit, between 1 s and an hour. A watch in range is
    /// thus always trusted for at least nine tenths of the limit ahead.
    static func companionSyncRepublishInterval(offlineLimit: ISO8601Duration) -> TimeInterval {
        let reference = Date(timeIntervalSince1970: 0)
        let limit = offlineLimit.added(to: reference).timeIntervalSince(reference)
        return min(3600, max(1, limit / 10))
    }

    /// One line for each product held purchases name that no entitlement lists, the first time it is seen.
    private func logUnmappedProducts(_ products: [String]) {
        for product in products where loggedUnmappedProducts.insert(product).inserted {
            log("unmapped product \(product): no entitlement in \(configuration.catalogPath) lists it; its purchase is kept and grants nothing until the catalog maps it")
        }
    }

    /// Seconds from now until the daemon's time (``TimeAnchor/justifiedNow(wallClock:boot:)``)
    /// reaches `instant`: how long to wait for a transition, also while the wall clock is not believed.
    func secondsUntil(_ instant: Date) -> Double {
        instant.timeIntervalSince(state.anchor.justifiedNow(wallClock: Date(), boot: BootInstant.current()))
    }

    /// Optional work whose back-off has run out: a failed compaction.
    func upkeep() {
        if let failed = failedCompaction, ContinuousClock.now >= failed.retryAt { compactIfDue(failed.trigger) }
    }

    /// When (monotonic) ``upkeep()`` has work; `nil` when nothing failed.
    var upkeepDue: ContinuousClock.Instant? { failedCompaction?.retryAt }

    static func describe(_ snapshot: EntitlementSnapshot) -> String {
        let parts = snapshot.entitlements.keys.sorted().map { id -> String in
            let status = snapshot.entitlements[id]!
            var text = "\(id)=\(status.state.rawValue)"
            if status.periodType != .normal { text += "(\(status.periodType.rawValue))" }
            if let expiresAt = status.expiresAt { text += " until \(ISO8601.string(from: expiresAt))" }
            return text
        }
        let next = snapshot.nextTransition.map { ", next transition \(ISO8601.string(from: $0))" } ?? ""
        return parts.joined(separator: ", ") + next
    }
}
