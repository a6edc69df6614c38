import BrokerTools
import Broker
import CLISupport
import Entitlements
import StoreKitFormats
import FoundationEssentials
import ServiceRuntime
import EntitlementDefaults
import SharedDefaults
import SystemShims
import EntitlementTools
import WidgetTimeline

/// The demo's processes and its script. Every wait has a deadline; a missed one fails the demo
/// with a message instead of hanging.
actor DemoStage {
    let phone: ContainerLayout
    let watch: ContainerLayout
    let tools: ToolLinks
    /// The demo's temporary directory, where the pairing key is made.
    let root: String
    let catalogPath: String
    let catalog: Catalog
    /// What the demo prints in: its own lines and the children's, which draw in it too.
    let charset: TextCharset
    private let glyphs: Glyphs
    private var children: [(name: String, process: ChildProcess)] = []
    private var serial = 0
    /// The link between the two daemons, once the watch's daemon listens.
    private var relay: DemoRelay?

    /// The tools the demo starts, each through a link named after it.
    static let tools = ["entitlementd", "entitlementctl", "widget-renderer"]

    init(root: String, tools: ToolLinks, catalogPath: String, catalog: Catalog, charset: TextCharset) {
        self.tools = tools
        self.root = root
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
        // The watch is a device of its own: its own broker on its own container, linked to the
        // phone's over TCP through the demo's relay (the radio between them), under a pairing key.
        let key = root + "/pairing.key"
        try await runTool(["pair", "--out", key])
        try start("watchd", "entitlementd", ["--container", watch.container, "--companion-listen", "127.0.0.1:0", "--pairing-key", key] + common)
        let relay = try DemoRelay(forwardingTo: try await watchListeningAddress())
        self.relay = relay
        say("The watch's broker listens on 127.0.0.1; the phone's connects through the demo's relay at \(relay.address).")
        try start("daemon", "entitlementd", ["--container", phone.container, "--companion-connect", "\(relay.address)", "--pairing-key", key] + common)
        try start("widget", "widget-renderer", ["--follow", "--container", phone.container, "--family", "systemSmall", "--family", "accessoryInline"] + common + style)
        try start("watch", "widget-renderer", ["--follow", "--device", "watch", "--container", watch.container, "--family", "app", "--family", "accessoryInline"] + common + style)

        step(1, "A free user: nothing bought, widgets and the watch app are locked.")
        try await waitForPublished(atLeast: 1, locked: true)
        try await waitForWatch(locked: true)

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

        step(4, "The user buys Geko Plus Lifetime on the phone; the purchase crosses the link to the watch.")
        let buy = Date()
        let lifetime = catalogProduct(monthly: false)
        let bought = try await ingest(transaction(id: "2000000002", product: lifetime, purchased: buy, expires: nil, trial: false))
        try await waitForPublished(atLeast: bought, locked: false)
        let watchBought = try await waitForWatch(locked: false)
        say("The watch shows unlocked (its generation \(watchBought)): the phone's purchase reached it.")

        step(5, "The watch goes out of range (the relay closes the link and turns every reconnection away). Apple refunds the lifetime purchase.")
        relay.cut()
        guard await ChildProcess.wait(timeout: Self.deadline, until: { relay.openLinks == 0 }) else {
            throw ToolError(.temporaryFailure, "the relay did not close the link within \(Self.deadline)")
        }
        let refund = Date().addingTimeInterval(0.001)
        let refunded = try await ingest(transaction(id: "2000000002", product: lifetime, purchased: buy, expires: nil, trial: false, revoked: refund))
        try await waitForPublished(atLeast: refunded, locked: true)
        let (watchMissed, watchStillUnlocked) = Self.published(on: watch, gate: catalog.featureGate)
        guard watchStillUnlocked else {
            throw ToolError(.temporaryFailure, "the watch locked (generation \(watchMissed)) while out of range: it cannot have heard of the refund")
        }
        say("The watch still shows unlocked (its generation \(watchMissed)): out of range, it has not heard of the refund.")

        step(6, "The watch is back in range: the phone reconnects and sends only what the watch lacks.")
        relay.restore()
        let watchCaughtUp = try await waitForWatch(locked: true)
        say("The watch caught up and shows locked (its generation \(watchCaughtUp)).")

        step(7, "The user buys Geko Plus Lifetime again, this time on the watch; the purchase crosses the link to the phone.")
        let beforeWatchPurchase = try currentGeneration()
        let again = Date()
        _ = try await ingest(transaction(id: "2000000003", product: lifetime, purchased: again, expires: nil, trial: false), on: watch)
        try await waitForWatch(locked: false)
        try await waitForPublished(atLeast: beforeWatchPurchase + 1, locked: false)
        say("The phone shows unlocked (generation \(try currentGeneration())): the watch's purchase reached it.")
        say("Done: every state reached the widget. The purchases and the refund crossed the link both ways.")
    }

    /// Stops every child with SIGTERM (SIGKILL after 5 s) and reports how each ended.
    func stopAll() async {
        for (name, child) in children.reversed() {
            let status = await child.stop()
            say("\(name) exited with status \(status.map(String.init) ?? "unknown")")
        }
        children.removeAll()
        relay?.stop()
        relay = nil
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

    /// Runs `entitlementctl ingest --wait` on `device`'s container (the phone's unless named) as a
    /// child and returns the generation it reports.
    private func ingest(_ line: String, on device: ContainerLayout? = nil) async throws -> Int64 {
        let device = device ?? phone
        serial += 1
        let file = device.container + "/event-\(serial).json"
        try Data((line + "\n").utf8).write(to: URL(fileURLWithPath: file))
        say("entitlementctl ingest --wait\(device.container == watch.container ? " (on the watch)" : "")  ← \(line)")
        let output = try await runTool(["ingest", "--wait", file, "--container", device.container, "--group", device.group, "--catalog", catalogPath])
        let words = output.split(whereSeparator: \.isWhitespace)
        return words.last.flatMap { Int64($0) } ?? 0
    }

    /// Runs `entitlementctl ARGUMENTS` as a child to its end and returns what it printed.
    @discardableResult
    private func runTool(_ arguments: [String]) async throws -> String {
        let child = try ChildProcess(executable: tools.path("entitlementctl"), arguments: arguments)
        let name = "entitlementctl \(arguments.first ?? "")"
        guard let status = await child.waitForExit(timeout: Self.deadline) else {
            await child.stop()
            throw ToolError(.temporaryFailure, "\(name) did not finish within \(Self.deadline)")
        }
        guard status == 0 else {
            throw ToolError(.temporaryFailure, "\(name) exited \(status): \(child.standardError.split(whereSeparator: \.isNewline).last ?? "")")
        }
        return child.standardOutput
    }

    /// The address the watch's daemon reports it listens on (it asked the kernel for a free port).
    private func watchListeningAddress() async throws -> TCPSocket.Address {
        let daemon = children.first { $0.name == "watchd" }?.process
        let prefix = "companion: listening on "
        var address: TCPSocket.Address?
        _ = await ChildProcess.wait(timeout: Self.deadline) {
            guard let daemon else { return true }
            let line = daemon.standardError.split(separator: "\n").first { $0.contains(prefix) }
            address = line.flatMap { $0.split(separator: " ").last }.flatMap { TCPSocket.Address(parsing: String($0)) }
            return address != nil || !daemon.isRunning
        }
        guard let address else { throw ToolError(.temporaryFailure, "the watch's daemon did not listen within \(Self.deadline)") }
        return address
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
        let widget = children.first { $0.name == "widget" }?.process
        let rendered = await ChildProcess.wait(timeout: Self.deadline) {
            Self.hasRendered(generationAtLeast: published, in: widget?.standardOutput ?? "")
        }
        guard rendered else { throw ToolError(.temporaryFailure, "the widget follower did not render generation \(published) within \(Self.deadline)") }
    }

    /// The generation `device` has published and whether `widgets` is unlocked there now.
    private static func published(on device: ContainerLayout, gate: FeatureGate) -> (generation: Int64, unlocked: Bool) {
        let reader = SnapshotReader(suiteName: device.group, container: device.container)
        _ = reader.refresh()
        guard let snapshot = reader.lastGood else { return (0, false) }
        let unlocked = gate.check("widgets", snapshot: snapshot, wallClock: snapshot.effectiveNow(wallClock: Date(), boot: .current())).isUnlocked
        return (snapshot.generation, unlocked)
    }

    /// Waits until the watch's broker has published `widgets` in the expected state and the watch
    /// follower has rendered that generation; returns the generation.
    @discardableResult
    private func waitForWatch(locked: Bool) async throws -> Int64 {
        let watch = watch
        let gate = catalog.featureGate
        var generation: Int64 = 0
        let reached = await ChildProcess.wait(timeout: Self.deadline) {
            let state = Self.published(on: watch, gate: gate)
            generation = state.generation
            return generation > 0 && state.unlocked != locked
        }
        guard reached else {
            throw ToolError(.temporaryFailure, "the watch did not show \(locked ? "locked" : "unlocked") within \(Self.deadline)")
        }
        let follower = children.first { $0.name == "watch" }?.process
        let rendered = await ChildProcess.wait(timeout: Self.deadline) {
            Self.hasRendered(generationAtLeast: generation, in: follower?.standardOutput ?? "")
        }
        guard rendered else {
            throw ToolError(.temporaryFailure, "the watch follower did not render generation \(generation) within \(Self.deadline)")
        }
        return generation
    }

    /// Whether a follower's output shows a render of `generation` or a later one. A follower reads
    /// the latest snapshot when it wakes, so two quick publishes can reach it as the second alone.
    static func hasRendered(generationAtLeast generation: Int64, in output: String) -> Bool {
        output.split(separator: "\n").contains { (line: Substring) in
            let words = line.split(separator: " ")
            guard let index = words.firstIndex(of: "generation"), index + 1 < words.count else { return false }
            return Int64(words[index + 1]).map { $0 >= generation } ?? false
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
