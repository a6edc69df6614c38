import Broker
import EntitlementDefaults
import Entitlements
import Foundation
import Glibc
import ServiceRuntime
import SharedDefaults
import TestSupport
import Testing

/// Two real daemons, the phone (`--companion-connect`) and the watch (`--companion-listen`), each
/// on its own container, linked over 127.0.0.1 through a ``LinkProxy`` the test controls.
/// Deadlines are generous (the machine is shared); every wait is for a condition.
@Suite("Companion link end to end", .timeLimit(.minutes(3)))
struct CompanionLinkEndToEndTests {
    static let product = "com.irenews.geko.plus.lifetime"
    static let deadline: Duration = .seconds(40)

    /// Both containers, the key, and the running daemons.
    final class Pair: @unchecked Sendable {
        let root: String
        let group = "group.test.geko"
        let key: String
        var watch: ChildProcess?
        var phone: ChildProcess?
        var watchPort: UInt16 = 0
        var proxy: LinkProxy?
        /// The watch's own catalog, when it differs from the phone's.
        var watchCatalog: String?

        init(root: String) async throws {
            self.root = root
            key = root + "/pairing.key"
            let made = try await BuiltTools.run("entitlementctl", ["pair", "--out", key])
            guard made.status == 0 else { throw FixtureError("pair: \(made.standardError)") }
        }

        func container(_ side: String) -> String { root + "/" + side }
        func common(_ side: String) -> [String] {
            ["--container", container(side), "--group", group, "--catalog", side == "watch" ? watchCatalog ?? BuiltTools.defaultCatalog : BuiltTools.defaultCatalog]
        }
        func snapshot(_ side: String) -> EntitlementSnapshot? { SnapshotReader(suiteName: group, container: container(side)).refresh().snapshot }
        func state(_ side: String) -> EntitlementState? { snapshot(side)?.status(of: "plus").state }

        /// Starts the watch listening on a free port (port 0 first time, the same port after), waits for its publish.
        func startWatch(key: String? = nil) async throws {
            let port = watchPort == 0 ? "0" : String(watchPort)
            let daemon = try BuiltTools.start("entitlementd", common("watch") + ["--companion-listen", "127.0.0.1:\(port)", "--pairing-key", key ?? self.key])
            watch = daemon
            let listening = await ChildProcess.wait(timeout: deadline) { daemon.standardError.contains("companion: listening on") || !daemon.isRunning }
            guard listening, daemon.isRunning, let line = daemon.standardError.split(separator: "\n").first(where: { $0.contains("listening on") }),
                let found = UInt16(line.split(separator: ":").last ?? "")
            else { throw FixtureError("watch did not listen: \(daemon.standardError)") }
            watchPort = found
            if proxy == nil { proxy = try LinkProxy(targetPort: found) }
            guard await ChildProcess.wait(timeout: deadline, until: { self.snapshot("watch") != nil }) else { throw FixtureError("watch did not publish") }
        }

        /// Starts the phone connecting through the proxy.
        func startPhone(key: String? = nil) async throws {
            let port = try #require(proxy).port
            let daemon = try BuiltTools.start("entitlementd", common("phone") + ["--companion-connect", "127.0.0.1:\(port)", "--pairing-key", key ?? self.key])
            phone = daemon
            guard await ChildProcess.wait(timeout: deadline, until: { self.snapshot("phone") != nil || !daemon.isRunning }), daemon.isRunning else {
                throw FixtureError("phone did not publish: \(daemon.standardError)")
            }
        }

        func connected(_ side: String) async throws -> Bool {
            let result = try await BuiltTools.run("entitlementctl", ["companion", "--format", "json"] + common(side))
            guard result.status == 0, let object = try? JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any] else { return false }
            return object["connected"] as? Bool == true
        }

        func companion(_ side: String) async throws -> [String: Any] {
            let result = try await BuiltTools.run("entitlementctl", ["companion", "--format", "json"] + common(side))
            return (try? JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]) ?? [:]
        }

        func waitUntilConnected() async throws -> Bool {
            let clock = ContinuousClock(), end = clock.now.advanced(by: deadline)
            while clock.now < end {
                if try await connected("phone"), try await connected("watch") { return true }
                try await Task.sleep(for: .milliseconds(50))
            }
            return false
        }

        func ingest(_ side: String, _ line: String) async throws -> Int32 {
            try await BuiltTools.run("entitlementctl", ["ingest", "--wait", "-"] + common(side), input: line).status
        }

        func stop() async {
            proxy?.close()
            for daemon in [phone, watch].compactMap({ $0 }) { await daemon.stop() }
        }
    }

    static func with(_ name: String = #function, _ body: (Pair) async throws -> Void) async throws {
        let root = NSTemporaryDirectory() + "link-\(name.filter(\.isLetter).prefix(24))-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let pair = try await Pair(root: root)
        do {
            try await body(pair)
        } catch {
            print("phone: \(pair.phone?.standardError ?? "")\nwatch: \(pair.watch?.standardError ?? "")")
            await pair.stop()
            throw error
        }
        if ProcessInfo.processInfo.environment["LINK_TEST_LOGS"] != nil {
            print("phone: \(pair.phone?.standardError ?? "")\nwatch: \(pair.watch?.standardError ?? "")")
        }
        await pair.stop()
    }

    static func purchase(_ id: String, at date: Date = Date()) -> String {
        Fixture.transaction(id: id, product: product, purchased: date, expires: nil)
    }

    @Test("A purchase on the phone reaches the watch, and one on the watch reaches the phone")
    func bothWays() async throws {
        try await Self.with { pair in
            try await pair.startWatch()
            try await pair.startPhone()
            #expect(try await pair.waitUntilConnected())
            // A sync (the handshake and every heartbeat count) is published in each side's snapshot.
            #expect(await ChildProcess.wait(timeout: Self.deadline) {
                pair.snapshot("watch")?.companionSyncedAt != nil && pair.snapshot("phone")?.companionSyncedAt != nil
            })
            #expect(pair.snapshot("watch")?.device == .watch && pair.snapshot("phone")?.device == .phone)
            #expect(try await pair.ingest("phone", Self.purchase("7001")) == 0)
            #expect(await ChildProcess.wait(timeout: Self.deadline) { pair.state("watch") == .purchased })
            let watchEvents = pair.snapshot("watch")?.generation
            #expect(await ChildProcess.wait(timeout: Self.deadline) { (try? FileManager.default.contentsOfDirectory(atPath: pair.container("watch") + "/Library/Broker/inbox"))?.isEmpty == true })

            // The other way: a refund made on the watch (say) revokes it on the phone too.
            let refund = Fixture.transaction(id: "7001", product: Self.product, purchased: Date(timeIntervalSinceNow: -60), expires: nil,
                                             signed: Date(), revoked: Date())
            #expect(try await pair.ingest("watch", refund) == 0)
            #expect(await ChildProcess.wait(timeout: Self.deadline) { pair.state("phone") == .revoked })
            #expect(pair.state("watch") == .revoked)
            #expect((pair.snapshot("watch")?.generation ?? 0) > (watchEvents ?? 0))
            // Each side's companion state settles at nothing pending.
            #expect(await Self.settles(pair))
        }
    }

    static func settles(_ pair: Pair) async -> Bool {
        let clock = ContinuousClock(), end = clock.now.advanced(by: deadline)
        while clock.now < end {
            let phone = (try? await pair.companion("phone")) ?? [:], watch = (try? await pair.companion("watch")) ?? [:]
            if phone["pendingOut"] as? Int == 0, watch["pendingOut"] as? Int == 0, phone["pendingIn"] as? Int == 0, watch["pendingIn"] as? Int == 0 {
                return true
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    @Test("Link cut: a refund on the phone waits, and the watch catches up when the link is back")
    func cutThenCatchUp() async throws {
        try await Self.with { pair in
            try await pair.startWatch()
            try await pair.startPhone()
            #expect(try await pair.waitUntilConnected())
            let bought = Date(timeIntervalSinceNow: -30)
            #expect(try await pair.ingest("phone", Self.purchase("7101", at: bought)) == 0)
            #expect(await ChildProcess.wait(timeout: Self.deadline) { pair.state("watch") == .purchased })

            let proxy = try #require(pair.proxy)
            proxy.cut()
            #expect(await ChildProcess.wait(timeout: Self.deadline) { pair.phone?.standardError.contains("connection closed") == true })
            let refund = Fixture.transaction(id: "7101", product: Self.product, purchased: bought, expires: nil, signed: Date(), revoked: Date())
            #expect(try await pair.ingest("phone", refund) == 0)
            #expect(pair.state("phone") == .revoked)
            let pending = try await pair.companion("phone")
            #expect(pending["pendingOut"] as? Int == 1 && pending["connected"] as? Bool == false, "\(pending)")
            #expect(pair.state("watch") == .purchased)

            proxy.restore()
            #expect(await ChildProcess.wait(timeout: Self.deadline) { pair.state("watch") == .revoked })
            #expect(await Self.settles(pair))
        }
    }

    @Test("kill -9 of either side loses nothing acknowledged")
    func killNine() async throws {
        try await Self.with { pair in
            try await pair.startWatch()
            try await pair.startPhone()
            #expect(try await pair.waitUntilConnected())
            // The watch dies; a purchase on the phone is acknowledged there and reaches the watch once it is back.
            pair.watch?.send(SIGKILL)
            _ = await pair.watch?.waitForExit(timeout: Self.deadline)
            #expect(try await pair.ingest("phone", Self.purchase("7201")) == 0)
            try await pair.startWatch()
            #expect(await ChildProcess.wait(timeout: Self.deadline) { pair.state("watch") == .purchased })

            // The phone dies right after acknowledging a refund while the link is cut; after its restart it delivers it.
            let proxy = try #require(pair.proxy)
            proxy.cut()
            let refund = Fixture.transaction(id: "7201", product: Self.product, purchased: Date(timeIntervalSinceNow: -60), expires: nil,
                                             signed: Date(), revoked: Date())
            #expect(try await pair.ingest("phone", refund) == 0)
            pair.phone?.send(SIGKILL)
            _ = await pair.phone?.waitForExit(timeout: Self.deadline)
            proxy.restore()
            try await pair.startPhone()
            #expect(await ChildProcess.wait(timeout: Self.deadline) { pair.state("watch") == .revoked })
        }
    }

    @Test("A wrong pairing key is refused on both sides, and each keeps serving its container")
    func wrongKey() async throws {
        try await Self.with { pair in
            let other = pair.root + "/other.key"
            #expect(try await BuiltTools.run("entitlementctl", ["pair", "--out", other]).status == 0)
            try await pair.startWatch()
            try await pair.startPhone(key: other)
            #expect(await ChildProcess.wait(timeout: Self.deadline) {
                pair.watch?.standardError.contains("proof of the pairing key is wrong") == true
                    && pair.phone?.standardError.contains("proof of the pairing key is wrong") == true
            })
            #expect(try await pair.ingest("phone", Self.purchase("7301")) == 0)
            #expect(try await pair.ingest("watch", Self.purchase("7302")) == 0)
            #expect(try await !pair.connected("watch"))
            #expect(!(pair.watch?.standardError.contains("authenticated") ?? true))
        }
    }

    @Test("A tampered byte ends the connection and changes nothing; the next connection delivers")
    func tamperedByte() async throws {
        try await Self.with { pair in
            try await pair.startWatch()
            let proxy = try #require(pair.proxy)
            // Past the two hellos and proofs (38 bytes each): inside the first sealed frame.
            proxy.tamperNextConnection(.toTarget, atOffset: 90)
            // No phone daemon yet: the events are queued and wait for it (exit 69, "no daemon").
            #expect(try await pair.ingest("phone", Self.purchase("7401")) == 69)
            try await pair.startPhone()
            #expect(await ChildProcess.wait(timeout: Self.deadline) { pair.watch?.standardError.contains("did not authenticate") == true })
            #expect(await ChildProcess.wait(timeout: Self.deadline) { pair.state("watch") == .purchased })
            #expect(pair.watch?.standardError.components(separatedBy: "accepted 1 events").count == 2)
        }
    }

    @Test("A replayed stream changes nothing")
    func replay() async throws {
        try await Self.with { pair in
            try await pair.startWatch()
            try await pair.startPhone()
            #expect(try await pair.waitUntilConnected())
            #expect(try await pair.ingest("phone", Self.purchase("7501")) == 0)
            #expect(await ChildProcess.wait(timeout: Self.deadline) { pair.state("watch") == .purchased })
            let proxy = try #require(pair.proxy)
            let recorded = proxy.recorded(.toTarget, connection: 0)
            #expect(recorded.count > 76)
            let journal = pair.container("watch") + "/Library/Broker/journal.jsonl"
            let before = try Data(contentsOf: URL(fileURLWithPath: journal))
            let generation = pair.snapshot("watch")?.generation
            // Straight to the watch, as an attacker on the network would.
            let socket = LinkProxy.connect(port: pair.watchPort)
            #expect(socket >= 0)
            _ = recorded.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            #expect(await ChildProcess.wait(timeout: Self.deadline) { pair.watch?.standardError.contains("proof of the pairing key is wrong") == true })
            close(socket)
            #expect(try Data(contentsOf: URL(fileURLWithPath: journal)) == before)
            #expect(pair.snapshot("watch")?.generation == generation)
        }
    }

    @Test("A half-open link (black hole) is noticed within 10 s on both sides, and the link comes back")
    func halfOpen() async throws {
        try await Self.with { pair in
            try await pair.startWatch()
            try await pair.startPhone()
            #expect(try await pair.waitUntilConnected())
            let proxy = try #require(pair.proxy)
            let holed = ContinuousClock.now
            proxy.blackHole()
            #expect(await ChildProcess.wait(timeout: Self.deadline) {
                pair.phone?.standardError.contains("nothing heard from the peer") == true
                    && pair.watch?.standardError.contains("nothing heard from the peer") == true
            })
            // Detected by the daemons' own clocks within 10 s; measured here with room for a loaded machine.
            #expect(ContinuousClock.now - holed < .seconds(30))
            proxy.restore()
            #expect(await ChildProcess.wait(timeout: Self.deadline) {
                (pair.phone?.standardError.components(separatedBy: "authenticated").count ?? 0) >= 3
            })
            #expect(try await pair.ingest("phone", Self.purchase("7601")) == 0)
            #expect(await ChildProcess.wait(timeout: Self.deadline) { pair.state("watch") == .purchased })
        }
    }

    @Test("Bad network input: garbage, a frame over the bound, a wrong version, a slow peer, a flood of connections")
    func badInput() async throws {
        try await Self.with { pair in
            try await pair.startWatch()
            let port = pair.watchPort
            func sendAndWait(_ bytes: [UInt8], for text: String) async -> Bool {
                let socket = LinkProxy.connect(port: port)
                defer { close(socket) }
                _ = bytes.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                return await ChildProcess.wait(timeout: Self.deadline) { pair.watch?.standardError.contains(text) == true }
            }
            #expect(await sendAndWait(Array("GET / HTTP/1.1\r\n\r\n".utf8), for: "frame of unsupported version 71"))
            #expect(await sendAndWait([1, 1, 0x7F, 0xFF, 0xFF, 0xFF], for: "frame body of 2147483647 bytes"))
            #expect(await sendAndWait([1, 9, 0, 0, 0, 0], for: "frame of unknown kind 9"))
            // A slow peer: one byte, then nothing; the handshake deadline ends it.
            #expect(await sendAndWait([1], for: "did not complete the handshake in time"))
            // A flood: more connections than may wait for a handshake at once.
            // Each one is closed with its own line: refused at once, or at its handshake deadline.
            let flood = (0..<40).map { _ in LinkProxy.connect(port: port) }
            func lines(_ text: String) -> Int { (pair.watch?.standardError.components(separatedBy: text).count ?? 1) - 1 }
            #expect(await ChildProcess.wait(timeout: Self.deadline) {
                lines("connections are already waiting") + lines("did not complete the handshake in time") - 1 >= 40
            })
            // The watch serves its own container throughout.
            #expect(try await pair.ingest("watch", Self.purchase("7701")) == 0)
            #expect(pair.state("watch") == .purchased)
            for socket in flood where socket >= 0 { close(socket) }
            #expect(pair.watch?.isRunning == true)
            // And the real phone still gets in once the flood is gone.
            try await pair.startPhone()
            #expect(await ChildProcess.wait(timeout: Self.deadline) { pair.state("phone") == .purchased })
        }
    }

    @Test("Each side judges under its own catalog: under signatures: required an unsigned purchase from the phone unlocks nothing, and the link goes on")
    func ownCatalogDecides() async throws {
        try await Self.with { pair in
            pair.watchCatalog = try JournalKeepingTests.catalog(
                replacingEnvironmentWith: #""environment": "Xcode", "signatures": "required""#, in: pair.root + "/strict")
            try await pair.startWatch()
            try await pair.startPhone()
            #expect(try await pair.waitUntilConnected())
            #expect(try await pair.ingest("phone", Self.purchase("7801")) == 0)
            #expect(pair.state("phone") == .purchased)
            // Acknowledged and kept by the watch (its drain empties the inbox), granting nothing there.
            #expect(await Self.settles(pair))
            #expect(await ChildProcess.wait(timeout: Self.deadline) { pair.watch?.standardError.contains("signature policy does not read") == true })
            #expect(pair.state("watch") != .purchased)
            // The link did not stall: the next event crosses too.
            let refund = Fixture.transaction(id: "7801", product: Self.product, purchased: Date(timeIntervalSinceNow: -60), expires: nil,
                                             signed: Date(), revoked: Date())
            #expect(try await pair.ingest("phone", refund) == 0)
            #expect(await Self.settles(pair))
        }
    }

    @Test("A pairing key others may read, or owned by another user, is refused at start (65)")
    func keyFileRules() async throws {
        try await Self.with { pair in
            chmod(pair.key, 0o640)
            let result = try await BuiltTools.run(
                "entitlementd", pair.common("watch") + ["--companion-listen", "0", "--pairing-key", pair.key])
            #expect(result.status == 65)
            #expect(result.standardError.contains(pair.key) && result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
            chmod(pair.key, 0o600)
            let short = pair.root + "/short.key"
            _ = FileManager.default.createFile(atPath: short, contents: Data([1, 2, 3]), attributes: [.posixPermissions: 0o600])
            let shortResult = try await BuiltTools.run("entitlementd", pair.common("watch") + ["--companion-listen", "0", "--pairing-key", short])
            #expect(shortResult.status == 65 && shortResult.standardError.contains("not 32"))
            if geteuid() == 0 {
                chown(pair.key, 65534, 65534)
                let foreign = try await BuiltTools.run("entitlementd", pair.common("watch") + ["--companion-listen", "0", "--pairing-key", pair.key])
                #expect(foreign.status == 65 && foreign.standardError.contains("owned by uid 65534"))
            } else {
                print("keyFileRules: the foreign-owner case skipped (needs root to chown)")
            }
            // pair refuses to overwrite and writes mode 0600.
            #expect(try await BuiltTools.run("entitlementctl", ["pair", "--out", pair.key]).status == 65)
            let fresh = pair.root + "/fresh.key"
            #expect(try await BuiltTools.run("entitlementctl", ["pair", "--out", fresh]).status == 0)
            let attributes = try FileManager.default.attributesOfItem(atPath: fresh)
            #expect((attributes[.posixPermissions] as? Int) == 0o600 && (attributes[.size] as? Int) == 32)
        }
    }
}
