import CLISupport
import Entitlements
import StoreKitFormats
import FoundationEssentials
import EntitlementDefaults
import SharedDefaults
import SystemShims
import EntitlementTools

/// `entitlementctl check FEATURE [--count N [--adding K]] [--days-ago N] [--record]`: exit 0 when unlocked, 1 when locked.
struct CheckCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "entitlementctl check",
        abstract: "Check one feature against the published snapshot (exit 0 unlocked, 1 locked).",
        discussion: """
            Fails closed: no snapshot or a refused shared file answers locked, with the reason, and so does the \
            watch's snapshot once its last sync with the phone is the catalog's companionOfflineLimit old. A feature the catalog \
            does not define is a usage error (exit 64) that lists the known ones. The paywall copy is the feature's \
            copy for the reason (paywall.byReason), or its introOffer copy when the user may take an introductory \
            offer. The JSON form always has introOfferEligible, presentPaywall, count, limit and remaining (null when \
            unlimited). Read-only unless --record is given: then a locked answer appends a paywallShown event to \
            <dir>/Library/Analytics/paywall.jsonl unless one for the feature was recorded within its cooldown \
            (presentPaywall says whether to show it; the exit code stays 1), and an unlocked one a featureUsed event \
            with its tier (premium or free). A failure to record is a warning; the answer stands.
            """,
        arguments: [.init("feature", "A feature from the catalog, e.g. habits, collections, cards, history, widgets, sync.")])

    static let options: [CommandOption<Self>] = [
        .option(
            "--count", value: "n", "For count-limited features: how many items the user already has (unlocked while one more fits).",
            .wholeNumber(atLeast: 0)) { $0.count = $1 },
        .option(
            "--adding", value: "k",
            "With --count: how many items the user wants to add (locked when n + k exceeds the free limit; default 1, ignored without --count).",
            .wholeNumber(atLeast: 1)) { $0.adding = $1 },
        .option(
            "--days-ago", value: "n", "For time-window features (history): how many days back the item lies.", .wholeNumber(atLeast: 0)
        ) { $0.daysAgo = $1 },
        .flag("--record", "Record paywallShown (locked, outside the cooldown) or featureUsed (unlocked) analytics.") { $0.record = $1 },
        .option("--now", value: "ISO8601", "Evaluate at this instant (never earlier than the snapshot's issue time).", .iso8601) { $0.now = $1 },
        OutputFormat.option { $0.format = $1 },
        .group { $0.common = $1 },
    ]

    var common = CommonOptions()
    var feature = ""
    var count: Int?
    var adding = 1
    var daysAgo: Int?
    var record = false
    var now: Date?
    var format = OutputFormat.text

    mutating func parseArguments(_ scanner: inout ArgumentScanner) throws {
        let rest = try scanner.positionals()
        guard rest.count == 1 else { throw UsageError(rest.isEmpty ? "missing feature" : "expected one feature, got \(rest.count)") }
        feature = rest[0]
    }

    nonisolated(nonsending) func run() async throws {
        let catalog = try CatalogLoading.load(common.catalog)
        let gate = catalog.featureGate
        try Self.requireKnown(feature, gate: gate, catalogPath: "\(common.catalogPath)")
        let read = FeatureSnapshotRead(common, catalog: catalog, now: now)
        // A file that could not be read says nothing about the purchase: what would be locked
        // without it is no answer (75, or 77 without permission), while a free feature still is.
        let log = PaywallAnalyticsLog(container: common.container)
        let clock = read.clock
        var check = FeatureCheck(
            feature, gate: gate, snapshot: read.snapshot, clock: clock, count: count, adding: adding, daysAgo: daysAgo,
            analytics: (try? log.events()) ?? [])
        if let failedRead = read.failed, !check.decision.isUnlocked { throw ToolError(ExitCode(failedCall: failedRead.errno), failedRead.reason) }
        if let note = read.note { StandardStreams.writeError("entitlementctl check: \(note)\n") }
        if record { check.presentPaywall = Self.record(check, gate: gate, snapshot: read.snapshot, clock: clock, log: log) }
        switch format {
        case .text: StandardStreams.writeOut(check.text)
        case .json: StandardStreams.writeOut(check.json.serialized + "\n")
        }
        if !check.decision.isUnlocked { throw ExitCode.locked }
    }

    /// Appends the analytics event of `check` (`paywallShown` outside the cooldown, or
    /// `featureUsed`); returns whether to present the paywall (true when recording failed).
    static func record(_ check: FeatureCheck, gate: FeatureGate, snapshot: EntitlementSnapshot?, clock: Date, log: PaywallAnalyticsLog) -> Bool {
        do {
            if let shown = PaywallEvent.shown(for: check.decision, time: clock) {
                return try log.recordShown(shown, cooldown: gate.rules[check.feature]?.cooldown)
            }
            try log.append(.used(check.feature, tier: check.tier(gate: gate, snapshot: snapshot, clock: clock), time: clock))
        } catch {
            StandardStreams.writeError("entitlementctl check: warning: paywall event not recorded: \(error)\n")
            return !check.decision.isUnlocked
        }
        return false
    }

    /// Throws the usage error (64) for a feature the catalog does not define: for the command
    /// line that is the user's mistake, not a lock a script would act on.
    static func requireKnown(_ feature: String, gate: FeatureGate, catalogPath: String) throws {
        guard gate.rules[feature] == nil else { return }
        let known = gate.rules.keys.sorted()
        throw UsageError(
            "unknown feature '\(feature)'" + Suggestion.didYouMean(feature, among: known)
                + " (\(catalogPath) defines: \(known.joined(separator: ", ")))")
    }
}

/// The one-shot read of the snapshot a feature answer needs: the snapshot, a note on why there
/// is none, or the failed system call that kept it from being read, and the instant to answer at.
struct FeatureSnapshotRead {
    var snapshot: EntitlementSnapshot?
    var note: String?
    var failed: (reason: String, errno: Errno)?
    /// The instant to answer at: `--now` or the wall clock, never earlier than the snapshot's
    /// issue plus the boot time elapsed since (same boot).
    var clock: Date

    /// Reads the suite `common` names, or the catalog's `appGroup` when no group was given, to
    /// answer at `now` (`nil`: the wall clock). A snapshot the watch's broker published whose
    /// last sync with the phone is the catalog's `companionOfflineLimit` old counts as none
    /// (``EntitlementSnapshot/isTrusted(at:offlineLimit:readerIsWatch:)``), with a note saying so.
    init(_ common: CommonOptions, catalog: Catalog, now: Date?) {
        switch SnapshotLoading.read(common.layout(for: catalog)) {
        case .snapshot(let s): snapshot = s
        case .missing(let path): note = "\(path): no snapshot published yet (container \(common.containerPath.origin))"
        case .refused(let reason): note = reason
        case .failed(let reason, let errno): failed = (reason, errno)
        }
        clock = snapshot?.effectiveNow(wallClock: now ?? Date(), boot: .current()) ?? now ?? Date()
        if let stale = snapshot, !stale.isTrusted(at: clock, offlineLimit: catalog.companionOfflineLimit, readerIsWatch: false) {
            snapshot = nil
            note = "the watch last synced with its phone at \(stale.companionSyncedAt.map(ISO8601.string(from:)) ?? "?"),"
                + " companionOfflineLimit \(catalog.companionOfflineLimit) ago or more (container \(common.containerPath.origin)); failing closed"
        }
    }
}
