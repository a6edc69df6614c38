import Broker
import CLISupport
import FoundationEssentials
import EntitlementTools

/// `entitlementctl journal-repair`: set a damaged journal's damage aside and list what was lost.
struct JournalRepairCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "entitlementctl journal-repair",
        abstract: "Set a damaged daemon journal's damage aside so entitlementd can start again.",
        discussion: """
            Run it, with the daemon stopped, when entitlementd refused to start on a damaged journal \
            (exit 65). Damaged records are copied as found to Library/Broker/journal-damaged-<ms>.txt; \
            the journal keeps its intact records and a note of the loss. Prints one line per lost record \
            with the transaction ids it named. Subscriptions those records named grant nothing until the \
            App Store signs a newer version of them (ingest a fresh transaction or notification). \
            Exits 0 after a repair or when the journal is intact, 75 while a daemon holds the container.
            """)

    static let options: [CommandOption<Self>] = [.group(CommonOptions.options(ignoringCatalogIn: "journal-repair")) { $0.common = $1 }]

    var common = CommonOptions()

    nonisolated(nonsending) func run() async throws {
        let report: JournalRepair.Report
        do { report = try JournalRepair.run(layout: common.layout, now: Date()) } catch { throw error.toolError }
        var text = ""
        for lost in report.lost {
            let ids = lost.transactionIds.isEmpty && lost.originalTransactionIds.isEmpty
                ? "no transaction id readable: every subscription is withheld"
                : "transactions \((lost.transactionIds + lost.originalTransactionIds.filter { !lost.transactionIds.contains($0) }).joined(separator: ", "))"
            text += "lost \(lost.damage): \(ids)\n"
        }
        if report.cutTornTail { text += "cut off a torn last record; its event is still queued in the inbox\n" }
        if report.recoveredRecords > 0 { text += "recovered \(report.recoveredRecords) records whose newline was damaged\n" }
        if let side = report.sideFile { text += "damaged bytes copied to \(side)\n" }
        text += report.rewrote
            ? "\(report.journalPath): repaired: \(report.keptRecords + report.recoveredRecords) records kept, \(report.lost.count) lost\n"
            : "\(report.journalPath): intact (\(report.keptRecords) records)\n"
        StandardStreams.writeOut(text)
    }
}
