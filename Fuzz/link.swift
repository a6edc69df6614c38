import Foundation

/// Fuzz target: the input as a peer's byte stream on the companion link, cut into reads of a
/// size its first byte chooses, through the frame decoder into a responder's handshake (which
/// holds the pairing key) and, after that, into a session that a genuine handshake established.
///
/// Each frame's body is also decoded as a replication message (as if it had opened) and fed to a
/// receiver. No crash; the handshake never completes (the fuzzer does not hold the key, so it cannot prove
/// it), and no frame of the input opens in the genuine session (it cannot seal under its keys).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLink(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let first = bytes.first else { return 0 }
    let readSize = Int(first) + 1
    let stream = bytes.dropFirst()
    var decoder = FrameDecoder()
    let handshake = fuzzLinkHandshake()
    let session = fuzzLinkSession()
    var offset = stream.startIndex
    feeding: while offset < stream.endIndex {
        let end = min(offset + readSize, stream.endIndex)
        decoder.append(stream[offset..<end])
        offset = end
        while true {
            let next: LinkFrame?
            do { next = try decoder.nextFrame() } catch { break feeding }
            guard let frame = next else { break }
            if (try? handshake.receive(frame))?.session != nil { fatalError("a handshake completed without the pairing key") }
            if (try? session.open(frame)) != nil { fatalError("a frame opened that nobody sealed under the session key") }
            // The replication layer's decoder and receiver take any payload without a crash.
            if let message = try? LinkMessage(decoding: frame.body) {
                if message.encoded() != frame.body { fatalError("a message decoded from bytes it does not encode to") }
                if case .event(let sequence, let final, let bytes) = message {
                    var inbound = ReplicationInbound(received: 0, maximumLineByteCount: 1 << 20)
                    _ = try? inbound.receive(sequence: sequence, final: final, bytes: bytes)
                }
            }
        }
    }
    _ = try? decoder.finish()
    return 0
}

let fuzzLinkKey = SecretBytes((0..<32).map { UInt8($0) })

/// A responder's handshake with a fixed nonce, so that a run is reproducible.
func fuzzLinkHandshake() -> Handshake {
    try! Handshake(role: .responder, pairingKey: fuzzLinkKey, nonce: [UInt8](repeating: 0xa5, count: 32))
}

/// The keys of a genuine session between an initiator and a responder that both hold the key
/// (the fuzz build compiles the package's modules into one, so the internal schedule is in reach),
/// derived once: each input gets a fresh session over them, its counters at zero.
let fuzzLinkKeys = LinkKeySchedule(
    pairingKey: fuzzLinkKey, initiatorNonce: [UInt8](repeating: 0x5a, count: 32), responderNonce: [UInt8](repeating: 0x3c, count: 32)
).sessionKeys(for: .responder)

/// The responder's side of that session.
func fuzzLinkSession() -> LinkSession {
    LinkSession(sending: fuzzLinkKeys.sending, receiving: fuzzLinkKeys.receiving)
}
