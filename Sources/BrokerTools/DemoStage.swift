import Broker
import CLISupport
import EntitlementModel
import FoundationEssentials
import ServiceRuntime
import EntitlementDefaults
import SharedDefaults
import EntitlementTools
import WidgetTimeline

/// The demo's processes and its script. Every wait has a deadline; a missed one fails the demo
/// with a message instead of hanging.
actor DemoStage {
    let phone: ContainerLayout
    let watch: ContainerLayout
    let tools: ToolLinks
    let catalogPath: String
    let catalog: Catalog
    /// What the demo prints in: its own lines and the children's, which draw in it too.
    let charset: TextCharset
    private let glyphs: Glyphs
    private var children: [(name: String, process: ChildProcess)] = []
    private var serial = 0

    /// The tools the demo starts, each through a link named after it.
    static let tools = ["entitlementd", "entitlementctl", "widget-renderer"]

    init(root: String, tools: ToolLinks, catalogPath: String, catalog: Catalog, charset: TextCharset) {
        self.tools = tools
        phone = ContainerLayout(container: root + "/phone", group: CommonOptions.defaultGroup)
        watch = ContainerLayout(container: root + "/watch", group: CommonOptions.defaultGroup)
        self.catalogPath = catalogPath
        self.catalog = catalog
        self.charset = charset
        self.glyphs = Glyphs(charset)
    }

    static let deadline: Duration = .seconds(15)

    func play(trialSeconds: Double) async throws {
        say("Containers: phone \(phone.container), watch \(watch.container)")
        say("Shared file: \(phone.sharedFilePath)")
        let common = ["--group", phone.group, "--catalog", catalogPath]
        let style = charset == .ascii ? ["--ascii"] : []
        // The watch is a device of its own: its own broker on its own container, judging from its own events.
        try start("daemon", "entitlementd", ["--container", phone.container] + common)
        try start("watchd", "entitlementd", ["--container", watch.container] + common)
        try start("widget", "widget-renderer", ["--follow", "--container", phone.container, "--family", "systemSmall", "--family", "accessoryInline"] + common + style)
        try start("watch", "widget-renderer", ["--follow", "--device", "watch", "--container", watch.container, "--family", "app", "--family", "accessoryInline"] + common + style)

        step(1, "A free user: nothing bought, widgets and the watch app are locked.")
        try await waitForPublished(atLeast: 1, locked: true)
        try await waitForWatch()

        let now = Date()
        let trialEnd = now.addingTimeInterval(trialSeconds)
        step(2, "The user starts the monthly plan's free trial (ends in \(Int(trialSeconds)) s, at \(ISO8601.string(from: trialEnd))).")
        let trial = try await ingest(transaction(id: "2000000001", product: catalogProduct(monthly: true), purchased: now, expires: trialEnd, trial: true))
        try await waitForPublished(atLeast: trial, locked: false)

        step(3, "No event arrives. At the trial's end the daemon republishes and the widget relocks on its own timeline.")
        let beforeExpiry = try currentGeneration()
        try await waitForPublished(atLeast: beforeExpiry + 1, locked: true, timeout: .seconds(trialSeconds + 10))
        let lockedAt = Date()
        say("Locked \(Self.seconds(lockedAt.timeIntervalSince(trialEnd))) s after the trial's end.")

        step(4, "The user buys Geko Plus Lifetime.")
        let buy = Date()
        let lifetime = catalogProduct(monthly: false)
        let bought = try await ingest(transaction(id: "2000000002", product: lifetime, purchased: buy, expires: nil, trial: false))
        try await waitForPublished(atLeast: bought, locked: false)

        step(5, "Apple refunds the lifetime purchase (same transaction, now with a revocationDate).")
        let refund = Date().addingTimeInterval(0.001)
        let refunded = try await ingest(transaction(id: "2000000002", product: lifetime, purchased: buy, expires: nil, trial: false, revoked: refund))
        try await waitForPublished(atLeast: refunded, locked: true)
        say("Done: every state reached the widget. The watch's broker has no link to the phone here: it judged from its own events and stayed locked.")
    }

    /// Stops every child with SIGTERM (SIGKILL after 5 s) and reports how each ended.
    func stopAll() async {
        for (name, child) in children.reversed() {
            let status = await child.stop()
            say("\(name) exited with status \(status.map(String.init) ?? "unknown")")
        }
        children.removeAll()
    }

    // MARK: - Script helpers

    private func say(_ text: String) { write("demo   \(glyphs.vertical) \(text)") }

    private func step(_ number: Int, _ text: String) {
        write("\n\(glyphs.heading) \(number). \(text)")
    }

    /// Every line the demo prints goes through here, in the demo's charset.
    private nonisolated func write(_ line: String) {
        StandardStreams.writeOut(line.split(separator: "\n", omittingEmptySubsequences: false)
            .map { TextMetrics.displayable(String($0), charset: charset) }.joined(separator: "\n") + "\n")
    }

    private func start(_ name: String, _ tool: String, _ arguments: [String]) throws {
        let padded = name.count >= 6 ? String(name.prefix(6)) : name + String(repeating: " ", count: 6 - name.count)
        let separator = glyphs.vertical
        let child = try ChildProcess(executable: tools.path(tool), arguments: arguments) { [self] _, line in
            write(line.isEmpty ? "\(padded) \(separator)" : "\(padded) \(separator) \(line)")
        }
        children.append((name, child))
    }

    private func catalogProduct(monthly: Bool) -> String {
        let products = catalog.entitlements["plus"] ?? []
        let wanted = monthly ? "monthly" : "lifetime"
        return products.sorted().first { $0.hasSuffix(wanted) } ?? products.sorted().first ?? ""
    }

    private func transaction(id: String, product: String, purchased: Date, expires: Date?, trial: Bool, revoked: Date? = nil) -> String {
        StoreTransaction(
            transactionId: id, originalTransactionId: id, bundleId: catalog.bundleId, productId: product,
            purchaseDate: purchased, expiresDate: expires, quantity: 1,
            type: expires == nil ? .nonConsumable : .autoRenewable, signedDate: revoked ?? purchased,
            revocationReason: revoked.map { _ in RevocationReason(rawValue: 0) }, revocationDate: revoked,
            offerType: trial ? OfferType(rawValue: 1) : nil, offerDiscountType: trial ? .freeTrial : nil,
            environment: catalog.environment
        ).jsonRepresentation.serialized
    }

    /// Runs `entitlementctl ingest --wait` as a child and returns the generation it reports.
    private func ingest(_ line: String) async throws -> Int64 {
        serial += 1
        let file = phone.container + "/event-\(serial).json"
        try Data((line + "\n").utf8).write(to: URL(fileURLWithPath: file))
        say("entitlementctl ingest --wait  ← \(line)")
        let child = try ChildProcess(
            executable: tools.path("entitlementctl"),
            arguments: ["ingest", "--wait", file, "--container", phone.container, "--group", phone.group, "--catalog", catalogPath])
        guard let status = await child.waitForExit(timeout: Self.deadline) else {
            await child.stop()
            throw ToolError(.temporaryFailure, "entitlementctl ingest did not finish within \(Self.deadline)")
        }
        guard status == 0 else {
            throw ToolError(.temporaryFailure, "entitlementctl ingest exited \(status): \(child.standardError.split(whereSeparator: \.isNewline).last ?? "")")
        }
        let words = child.standardOutput.split(whereSeparator: \.isWhitespace)
        return words.last.flatMap { Int64($0) } ?? 0
    }

    private func currentGeneration() throws -> Int64 {
        SnapshotReader(suiteName: phone.group, container: phone.container).refresh().snapshot?.generation ?? 0
    }

    /// Waits until the phone has published generation ≥ `generation`, the feature `widgets` is
    /// in the expected state, and the widget follower has rendered that state.
    private func waitForPublished(atLeast generation: Int64, locked: Bool, timeout: Duration = deadline) async throws {
        let gate = catalog.featureGate
        let phoneReader = SnapshotReader(suiteName: phone.group, container: phone.container)
        var published: Int64 = 0
        let ok = await ChildProcess.wait(timeout: timeout) {
            _ = phoneReader.refresh()
            guard let snapshot = phoneReader.lastGood, snapshot.generation >= generation else { return false }
            published = snapshot.generation
            return gate.check("widgets", snapshot: snapshot, wallClock: snapshot.effectiveNow(wallClock: Date(), boot: .current())).isUnlocked != locked
        }
        guard ok else {
            throw ToolError(.temporaryFailure, "the phone did not reach generation \(generation) (\(locked ? "locked" : "unlocked")) within \(timeout)")
        }
        let marker = "generation \(published)"
        let widget = children.first { $0.name == "widget" }?.process
        let rendered = await ChildProcess.wait(timeout: Self.deadline) { widget?.standardOutput.contains(marker) ?? false }
        guard rendered else { throw ToolError(.temporaryFailure, "the widget follower did not render \(marker) within \(Self.deadline)") }
    }

    /// Waits until the watch's broker has published and the watch follower has rendered it.
    private func waitForWatch() async throws {
        let watchReader = SnapshotReader(suiteName: watch.group, container: watch.container)
        guard await ChildProcess.wait(timeout: Self.deadline, until: { watchReader.refresh().snapshot != nil }) else {
            throw ToolError(.temporaryFailure, "the watch's broker did not publish within \(Self.deadline)")
        }
        let follower = children.first { $0.name == "watch" }?.process
        guard await ChildProcess.wait(timeout: Self.deadline, until: { follower?.standardOutput.contains("generation 1") ?? false }) else {
            throw ToolError(.temporaryFailure, "the watch follower did not render generation 1 within \(Self.deadline)")
        }
    }

    /// `seconds` with three decimals ("0.046"), as the demo prints durations.
    static func seconds(_ seconds: Double) -> String {
        let milliseconds = Int64((seconds * 1000).rounded())
        let sign = milliseconds < 0 ? "-" : ""
        let magnitude = milliseconds.magnitude
        let fraction = String(magnitude % 1000)
        return "\(sign)\(magnitude / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}
