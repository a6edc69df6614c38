import CLISupport
import EntitlementModel
import FoundationEssentials
import EntitlementDefaults
import SharedDefaults
import SystemShims
import ToolSupport

/// `entitlementctl check FEATURE [--count N] [--days-ago N] [--record]`: exit 0 when unlocked, 1 when locked.
struct CheckCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "entitlementctl check",
        abstract: "Check one feature against the published snapshot (exit 0 unlocked, 1 locked).",
        discussion: """
            Fails closed: no snapshot or a refused shared file answers locked, with the reason. A feature the catalog \
            does not define is a usage error (exit 64) that lists the known ones. \
            Read-only unless --record is given: then a locked answer appends a paywallShown event to \
            <dir>/Library/Analytics/paywall.jsonl (JSON Lines; a failure to record is a warning, the answer stands).
            """,
        arguments: [.init("feature", "A feature from the catalog, e.g. habits, collections, cards, history, widgets, sync.")],
        options: [
            .init("--count", value: "n", "For count-limited features: how many items the user already has (unlocked while one more fits)."),
            .init("--days-ago", value: "n", "For time-window features (history): how many days back the item lies."),
            .init("--record", "Record a paywallShown analytics event when the answer is locked."),
            .init("--now", value: "ISO8601", "Evaluate at this instant (never earlier than the snapshot's issue time)."),
            OutputFormat.option,
        ] + CommonOptions.options)

    var common: CommonOptions
    var feature: String
    var count: Int?
    var daysAgo: Int?
    var record: Bool
    var now: Date?
    var format: OutputFormat

    init(parsing scanner: inout ArgumentScanner) throws {
        common = try CommonOptions(parsing: &scanner)
        count = try scanner.value("--count", as: "a whole number ≥ 0") { Int($0).flatMap { $0 >= 0 ? $0 : nil } }
        daysAgo = try scanner.value("--days-ago", as: "a whole number ≥ 0") { Int($0).flatMap { $0 >= 0 ? $0 : nil } }
        record = scanner.flag("--record")
        now = try scanner.value("--now", as: "an ISO 8601 date such as 2026-11-22T10:00:00Z", ISO8601.date(from:))
        format = try OutputFormat.parse(&scanner)
        let rest = try scanner.positionals()
        guard rest.count == 1 else { throw UsageError(rest.isEmpty ? "missing feature" : "expected one feature, got \(rest.count)") }
        feature = rest[0]
    }

    nonisolated(nonsending) func run() async throws {
        let catalog = try CatalogLoading.load(common.catalog)
        let gate = catalog.featureGate
        var snapshot: EntitlementSnapshot?
        var note: String?
        var failedRead: (reason: String, errno: Errno)?
        switch SnapshotLoading.read(common.layout(for: catalog)) {
        case .snapshot(let s): snapshot = s
        case .missing(let path): note = "\(path): no snapshot published yet (container \(common.containerPath.origin))"
        case .refused(let reason): note = reason
        case .failed(let reason, let errno): failedRead = (reason, errno)
        }
        // Never earlier than the snapshot's issue plus the boot time elapsed since (same boot).
        let clock = snapshot?.effectiveNow(wallClock: now ?? Date(), boot: .current()) ?? now ?? Date()
        let decision = gate.check(feature, snapshot: snapshot, wallClock: clock, currentCount: count, daysAgo: daysAgo)
        // The gate says whether the catalog defines the feature; for the command line an
        // undefined one is the user's mistake (exit 64), not a lock a script would act on.
        if decision.paywall?.reason == .unknownFeature {
            let known = gate.rules.keys.sorted()
            throw UsageError(
                "unknown feature '\(feature)'" + Suggestion.didYouMean(feature, among: known)
                    + " (\(common.catalogPath) defines: \(known.joined(separator: ", ")))")
        }
        // A file that could not be read says nothing about the purchase: what would be locked
        // without it is no answer (75, or 77 without permission), while a free feature still is.
        if let failedRead, !decision.isUnlocked { throw ToolError(ExitCode(failedCall: failedRead.errno), failedRead.reason) }
        if let note { StandardStreams.writeError("entitlementctl check: \(note)\n") }
        let freeCount = gate.rules[feature]?.freeCount, freeDays = gate.rules[feature]?.freeDays
        // Count limits: `limit` is nil when unlimited; `remaining` needs the caller's count.
        let limit = freeCount != nil ? gate.limit(feature, snapshot: snapshot, wallClock: clock) : nil
        let remaining: Int? = switch decision {
        case .unlocked(let remaining): remaining
        case .locked: limit.flatMap { limit in count.map { max(0, limit - $0) } }
        }
        switch format {
        case .text: StandardStreams.writeOut(text(decision, limit: limit, remaining: remaining))
        case .json:
            let object = json(decision, countLimited: freeCount != nil, freeDays: freeDays, limit: limit, remaining: remaining)
            StandardStreams.writeOut(object.serialized + "\n")
        }
        if record, let event = PaywallEvent.shown(for: decision, time: clock) {
            let log = PaywallAnalyticsLog(container: common.container)
            do { try log.append(event) } catch {
                StandardStreams.writeError("entitlementctl check: warning: paywall event not recorded: \(error)\n")
            }
        }
        if !decision.isUnlocked { throw ExitCode.locked }
    }

    private func text(_ decision: GateDecision, limit: Int?, remaining: Int?) -> String {
        switch decision {
        case .unlocked:
            return "unlocked: \(feature)" + (remaining.map { " (\($0) free remaining)" } ?? "") + "\n"
        case .locked(let paywall):
            let usage = limit.map { limit in " (free limit \(limit)" + (remaining.map { ", \($0) remaining" } ?? "") + ")" } ?? ""
            return "locked: \(feature): \(paywall.reason.rawValue)\(usage): \(paywall.copy.title) — \(paywall.copy.message) [\(paywall.copy.callToAction)] \(paywall.deepLink)\n"
        }
    }

    /// `remaining` (and, for count-limited features, `limit`, null when unlimited) on every answer;
    /// `freeDays` and `daysAgo` for time-window features; the paywall fields when locked.
    private func json(_ decision: GateDecision, countLimited: Bool, freeDays: Int?, limit: Int?, remaining: Int?) -> JSONValue {
        var object: [String: JSONValue] = [
            "feature": .string(feature), "locked": .bool(!decision.isUnlocked),
            "remaining": remaining.map { .int(Int64($0)) } ?? .null,
        ]
        if countLimited { object["limit"] = limit.map { .int(Int64($0)) } ?? .null }
        if let days = freeDays {
            object["freeDays"] = .int(Int64(days))
            object["daysAgo"] = daysAgo.map { .int(Int64($0)) } ?? .null
        }
        if let paywall = decision.paywall {
            object["reason"] = .string(paywall.reason.rawValue)
            object["title"] = .string(paywall.copy.title)
            object["message"] = .string(paywall.copy.message)
            object["callToAction"] = .string(paywall.copy.callToAction)
            object["deepLink"] = .string(paywall.deepLink)
        }
        return .object(object)
    }
}
