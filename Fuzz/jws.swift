import Foundation

/// Fuzz target: one input line through the JWS path under `signatures: required`, trusting Apple
/// Root CA - G3 and the test vectors' roots (the test root and Xcode's StoreKit certificate), plus
/// the same bytes as a certificate file (DER or PEM) and a JWS compact string.
///
/// No crash, and nothing accepted that is not correctly signed by a trusted root: every event an
/// accepted line yields must be one of the events the genuine seed lines carry (the fuzzer cannot
/// sign, so a new event can only come from a verification bug).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWS(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    if let events = try? EventDecoder.decode(line: bytes, signatures: fuzzJWSPolicy) {
        for event in events where !fuzzGenuineEvents.contains(event) {
            fatalError("accepted an event no trusted key signed: \(event)")
        }
    }
    if let certificate = try? X509Certificate(fileContents: bytes) {
        _ = certificate.isSelfSigned
    }
    if let text = String(validating: bytes, as: UTF8.self), let jws = try? JWSCompact(text) {
        _ = try? fuzzJWSPolicy.verifier.verify(jws, algorithm: "ES256", chain: [], signedDate: nil)
    }
    return 0
}

/// The test vectors (Fuzz/run.sh sets FUZZ_VECTORS_DIR to Tests/JWSVerificationTests/Vectors).
let fuzzVectors = ProcessInfo.processInfo.environment["FUZZ_VECTORS_DIR"] ?? "Tests/JWSVerificationTests/Vectors"

func fuzzVectorFile(_ name: String) -> Data {
    (try? Data(contentsOf: URL(fileURLWithPath: fuzzVectors + "/" + name))) ?? Data()
}

let fuzzJWSPolicy = SignaturePolicy(
    requirement: .required,
    trustedRoots: ["tampered/test-root.pem", "catalogs/xcode-storekit-testing.cer"].compactMap {
        try? X509Certificate(fileContents: fuzzVectorFile($0))
    })

/// Every event the genuine seed lines carry under ``fuzzJWSPolicy``.
let fuzzGenuineEvents: Set<StoreEvent> = {
    let files = ["apple/qysmat-notifications.jsonl", "apple/apple-xcode-signed-transaction.jws",
                 "apple/apple-xcode-signed-renewal-info.jws", "tampered/good-test-root.jsonl"]
    var events: Set<StoreEvent> = []
    for file in files {
        for line in String(decoding: fuzzVectorFile(file), as: UTF8.self).split(separator: "\n") {
            events.formUnion((try? EventDecoder.decode(line: String(line).utf8, signatures: fuzzJWSPolicy)) ?? [])
        }
    }
    if events.count < 8 { fatalError("the genuine seed events did not decode (\(events.count)); is FUZZ_VECTORS_DIR right?") }
    return events
}()
