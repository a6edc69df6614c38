import Foundation

/// Signs JWS payloads for tests with a test key, the way Xcode's StoreKit testing signs them:
/// ES256 over `header.payload`, `x5c` holding one self-signed certificate. The key and
/// certificate are committed test data (Tests/JWSVerificationTests/Vectors/tampered, made by
/// its make-tampered.py); signing runs the `openssl` command, which tests require.
public enum TestSigner {
    /// The test vectors directory.
    public static let vectors = BuiltTools.packageRoot + "/Tests/JWSVerificationTests/Vectors"
    /// The self-signed certificate (DER) whose key signs.
    public static let certificatePath = vectors + "/tampered/test-self-signed.cer"
    static let keyPath = vectors + "/tampered/keys/test-self-signed.pem"

    /// A JWS compact string of `payload`, signed with the test key; `header` members are added
    /// to (or replace) `alg` and `x5c`.
    public static func jws(_ payload: String, header extra: [String: Any] = [:]) -> String {
        let certificate = (try? Data(contentsOf: URL(fileURLWithPath: certificatePath))) ?? Data()
        var header: [String: Any] = ["alg": "ES256", "x5c": [certificate.base64EncodedString()]]
        header.merge(extra) { $1 }
        let headerJSON = (try? JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])) ?? Data()
        let signingInput = base64url(headerJSON) + "." + base64url(Data(payload.utf8))
        return signingInput + "." + base64url(rawSignature(of: Data(signingInput.utf8)))
    }

    /// The grant fixtures directory (Tests/EndToEndTests/Grants, made by its make-grants.py).
    public static let grants = BuiltTools.packageRoot + "/Tests/EndToEndTests/Grants"

    /// A grant JWS of `payload` as a developer signs one: header `{"alg": "ES256", "kid": kid}`,
    /// no `x5c`, signed with the private key at `keyPath` (default: the fixtures' grant key).
    public static func grantJWS(_ payload: String, kid: String = "support-2026", keyPath: String = grants + "/keys/grant-key.pem") -> String {
        let headerJSON = (try? JSONSerialization.data(withJSONObject: ["alg": "ES256", "kid": kid], options: [.sortedKeys])) ?? Data()
        let signingInput = base64url(headerJSON) + "." + base64url(Data(payload.utf8))
        return signingInput + "." + base64url(rawSignature(of: Data(signingInput.utf8), keyPath: keyPath))
    }

    public static func base64url(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// `openssl dgst -sha256 -sign` of `data`, as raw `r || s`; empty if openssl failed (the
    /// JWS is then refused, so a test that expects it accepted fails).
    static func rawSignature(of data: Data, keyPath: String = keyPath) -> Data {
        let input = NSTemporaryDirectory() + "/jws-signing-input-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: input) }
        guard (try? data.write(to: URL(fileURLWithPath: input))) != nil else { return Data() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl", "dgst", "-sha256", "-sign", keyPath, input]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return Data() }
        let der = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return Data() }
        return raw(fromDER: [UInt8](der))
    }

    /// ECDSA-Sig-Value (DER) to `r || s`, 32 bytes each.
    static func raw(fromDER der: [UInt8]) -> Data {
        guard der.count > 8, der[0] == 0x30 else { return Data() }
        var index = der[1] < 0x80 ? 2 : 3
        var out = Data()
        for _ in 0..<2 {
            guard index + 2 <= der.count, der[index] == 0x02 else { return Data() }
            let length = Int(der[index + 1])
            guard index + 2 + length <= der.count else { return Data() }
            let value = der[(index + 2)..<(index + 2 + length)].drop { $0 == 0 }
            guard value.count <= 32 else { return Data() }
            out += Data(repeating: 0, count: 32 - value.count) + Data(value)
            index += 2 + length
        }
        return out
    }
}
