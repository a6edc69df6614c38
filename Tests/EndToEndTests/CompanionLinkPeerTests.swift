import CompanionLink
import Foundation
import Glibc
import ServiceRuntime
import Cryptography
import TestSupport
import Testing

/// The watch's daemon against a peer the test plays itself, speaking the protocol with the
/// pairing key, so it can send what a real phone never would.
@Suite("Companion link against a scripted peer", .timeLimit(.minutes(2)))
struct CompanionLinkPeerTests {
    /// A blocking client of the link: frames out, frames in with a deadline.
    final class ScriptedPeer {
        let socket: CInt
        var decoder = FrameDecoder()
        var session: LinkSession?

        init(port: UInt16) throws {
            socket = LinkProxy.connect(port: port)
            guard socket >= 0 else { throw FixtureError("connect failed") }
        }

        deinit { close(socket) }

        func send(_ frame: LinkFrame) {
            let bytes = frame.encoded()
            _ = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }

        func send(_ message: LinkMessage) throws {
            send(try #require(session).seal(message.encoded()))
        }

        /// The next frame, or nil when none came within `seconds` or the stream ended.
        func nextFrame(seconds: Int32 = 30) throws -> LinkFrame? {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                if let frame = try decoder.nextFrame() { return frame }
                var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                guard poll(&entry, 1, seconds * 1000) > 0 else { return nil }
                let count = recv(socket, &buffer, buffer.count, 0)
                guard count > 0 else { return nil }
                decoder.append(buffer[0..<count])
            }
        }

        /// The next sealed message, opened; nil on a timeout or a closed stream.
        func nextMessage() throws -> LinkMessage? {
            guard let frame = try nextFrame() else { return nil }
            return try LinkMessage(decoding: try #require(session).open(frame))
        }

        /// Runs the initiator's handshake with `key`.
        func handshake(key: [UInt8]) throws {
            let handshake = try Handshake(role: .initiator, pairingKey: SecretBytes(key), nonce: (0..<32).map { _ in UInt8.random(in: 0...255) })
            send(handshake.hello)
            while session == nil {
                let frame = try #require(try nextFrame())
                let step = try handshake.receive(frame)
                for reply in step.send { send(reply) }
                session = step.session
            }
        }
    }

    @Test("A peer whose hello and wrong proof arrive together still gets the daemon's proof, and both sides can tell the key is wrong")
    func proofAnswersAWrongOne() async throws {
        try await Self.withListeningWatch { _, daemon, port, _ in
            // The daemon's hello first; then ours and our proof (under another key) in one segment,
            // so that one read gives the daemon both: it answers our hello before it judges the proof.
            let peer = try ScriptedPeer(port: port)
            let hello = try #require(try peer.nextFrame())
            #expect(hello.kind == .hello)
            let wrongKey = (0..<32).map { _ in UInt8.random(in: 0...255) }
            let handshake = try Handshake(role: .initiator, pairingKey: SecretBytes(wrongKey), nonce: (0..<32).map { _ in UInt8.random(in: 0...255) })
            let proof = try #require(try handshake.receive(hello).send.first)
            let both = handshake.hello.encoded() + proof.encoded()
            _ = both.withUnsafeBytes { Glibc.send(peer.socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }

            let answer = try #require(try peer.nextFrame(), "the daemon closed the connection without its proof")
            #expect(answer.kind == .proof)
            #expect(throws: LinkError.wrongPairingKey) { try handshake.receive(answer) }
            #expect(await ChildProcess.wait(timeout: .seconds(30)) { daemon.standardError.contains("proof of the pairing key is wrong") })
        }
    }

    @Test("An event the watch cannot read is acknowledged, logged once and not applied; the link goes on")
    func refusedEventIsAcknowledged() async throws {
        try await Self.withListeningWatch { fixture, daemon, port, key in
            let peer = try ScriptedPeer(port: port)
            try peer.handshake(key: key)
            #expect(try peer.nextMessage() == .resume(received: 0))
            try peer.send(.resume(received: 0))
            let purchase = Fixture.transaction(id: "7901", product: "com.irenews.geko.plus.lifetime", purchased: Date(), expires: nil)
            try peer.send(.event(sequence: 1, final: true, bytes: Array("this is not an event".utf8)))
            try peer.send(.event(sequence: 2, final: true, bytes: Array(purchase.utf8)))
            var acknowledged: UInt64 = 0
            while acknowledged < 2, let message = try peer.nextMessage() {
                if case .ack(let through) = message { acknowledged = through }
            }
            #expect(acknowledged == 2)
            #expect(await ChildProcess.wait(timeout: .seconds(30)) { fixture.snapshot()?.status(of: "plus").state == .purchased })
            #expect(daemon.standardError.components(separatedBy: "refused event 1").count == 2, "\(daemon.standardError)")
            // Sent again (a peer that missed the ack): a repeat, acknowledged and applied once.
            try peer.send(.event(sequence: 2, final: true, bytes: Array(purchase.utf8)))
            try peer.send(.heartbeat)
            #expect(daemon.isRunning)
            #expect(await daemon.stop() == 0)
            #expect(daemon.standardError.components(separatedBy: "refused event").count == 2)
        }
    }

    /// Runs `body` with a watch's daemon listening on a free port of 127.0.0.1 (`--companion-listen
    /// 0`) under a fresh pairing key, in a temporary directory removed afterwards; the daemon is
    /// killed at the end if it still runs.
    static func withListeningWatch(_ body: (Fixture, ChildProcess, UInt16, [UInt8]) async throws -> Void) async throws {
        let root = NSTemporaryDirectory() + "link-peer-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let fixture = Fixture(root: root)
        let keyPath = root + "/pairing.key"
        #expect(try await fixture.run("entitlementctl", ["pair", "--out", keyPath]).status == 0)
        let key = [UInt8](try Data(contentsOf: URL(fileURLWithPath: keyPath)))
        let daemon = try await fixture.startDaemon(["--companion-listen", "0", "--pairing-key", keyPath])
        defer { daemon.send(SIGKILL) }
        let line = try #require(daemon.standardError.split(separator: "\n").first { $0.contains("listening on") })
        let port = try #require(UInt16(line.split(separator: ":").last ?? ""))
        try await body(fixture, daemon, port, key)
    }
}
