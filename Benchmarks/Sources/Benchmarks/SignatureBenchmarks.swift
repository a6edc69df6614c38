import Foundation
// The benchmark calls the C library directly on purpose: its floors are the kernel without SystemShims.
import Glibc
import Cryptography

/// ECDSA verification rates of ``ECDSAPublicKey`` beside `openssl speed` for the same curves,
/// in the same run. Both count operations per second of CPU time: `openssl speed` divides by
/// the user time it used (unless given `-elapsed`), and these rows divide by the measuring
/// thread's CPU time, so a loaded machine slows both alike instead of only the side that ran
/// while other work on the machine did.
enum SignatureBenchmarks {
    struct Outcome {
        var p256VerificationsPerSecond: Double
        var p384VerificationsPerSecond: Double
        /// `ECDSAPublicKey(curve:x962Representation:)` per second on P-256, the standard
        /// preparation (each key precomputes multiples of its point; a verifier keeps the key).
        var p256KeysPerSecond: Double
        var openssl: OpenSSLSpeed
    }

    /// `openssl speed`'s verify/s column, or why there is none.
    enum OpenSSLSpeed {
        case measured(p256: Double, p384: Double, version: String)
        case unavailable(String)

        var p256: Double? { if case .measured(let value, _, _) = self { value } else { nil } }
        var p384: Double? { if case .measured(_, let value, _) = self { value } else { nil } }
    }

    /// A P-256 / SHA-256 and a P-384 / SHA-384 signature over the same payload, made with
    /// OpenSSL 3.0 (`openssl ecparam -genkey`, `openssl dgst -sha256 -sign` / `-sha384 -sign`).
    static let payload = Array(#"{"bench":"signed payload"}"#.utf8)
    static let p256Key = hexBytes(
        "043f3f15f741d2a107d799b7023ea0f24fa1ba18895954adbfb82cfe71f5314a948a86967558945efd46ae53fa53b764a032649016809ace24edea4440babb7fc5")
    static let p256Signature = hexBytes(
        "30440220405399e0d7bbee564e34e2a623820cb17e1a42cd5403c5db16b2bc046fbde70d0220425f73f160eeb48a8920c0dca80f84b353a80b3f3c76d09622e24c7034ecef79")
    static let p384Key = hexBytes(
        "048b774de8bc0945735fe127b6e3bf6e4be4c2f4c161f07b7b2bfba7178d875e5304a4c4db5e31d517d78077b9866d8d5f52461fc4dd5a787b86486d92d7cc675998f9e6f11f3803ae502efc7367ce5e0e95ae69f5a8c8fd70351a80f5ee11be43"
    )
    static let p384Signature = hexBytes(
        "306502303734f91941adaeca53f61382207efd72634821d2a7c65c2cbb623d10f7a4ee50853a03bc86961cd94a3c033857e07284023100eaabb071062e1490cde70c617c78c72f9463f07ce61941b145ebf5fc419814e8572cf9503273ce66e483722db2b0e15e"
    )

    /// Ours for `seconds` of CPU time per row, then `openssl speed` (one second per operation
    /// unless `runOpenSSL` is false).
    static func measure(seconds: Double, runOpenSSL: Bool) throws(BenchmarkError) -> Outcome {
        // Prepared as the verified-chain cache prepares a leaf's key: for many signatures.
        let p256 = try key(.p256, p256Key), p384 = try key(.p384, p384Key)
        let p256Digest = SHA256.hash(payload), p384Digest = SHA384.hash(payload)
        // The signatures in JWS form: what a JWS verification does per payload.
        let p256Raw = try raw(p256Signature, width: 32), p384Raw = try raw(p384Signature, width: 48)
        guard p256.isValidSignature(raw: p256Raw, digest: p256Digest), p384.isValidSignature(raw: p384Raw, digest: p384Digest) else {
            throw BenchmarkError("the benchmark's own signatures do not verify")
        }
        let p256Rate = rate(seconds: seconds) { p256.isValidSignature(raw: p256Raw, digest: p256Digest) }
        let p384Rate = rate(seconds: seconds) { p384.isValidSignature(raw: p384Raw, digest: p384Digest) }
        let keyRate = rate(seconds: seconds / 2) { (try? ECDSAPublicKey(curve: .p256, x962Representation: p256Key)) != nil }
        let openssl = runOpenSSL ? OpenSSLSpeed.run() : .unavailable("openssl not run (--smoke)")
        return Outcome(p256VerificationsPerSecond: p256Rate, p384VerificationsPerSecond: p384Rate, p256KeysPerSecond: keyRate, openssl: openssl)
    }

    /// Calls of `operation` per second of this thread's CPU time, over at least `seconds`.
    /// Every call must answer true (a false would mean the work measured is not the work meant).
    static func rate(seconds: Double, _ operation: () -> Bool) -> Double {
        var calls = 0
        var failures = 0
        let start = threadCPUSeconds()
        var elapsed = 0.0
        repeat {
            for _ in 0..<10 where !operation() { failures += 1 }
            calls += 10
            elapsed = threadCPUSeconds() - start
        } while elapsed < seconds
        blackHole(failures)
        return failures == 0 ? Double(calls) / elapsed : 0
    }

    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private static func key(_ curve: EllipticCurve, _ bytes: [UInt8]) throws(BenchmarkError) -> ECDSAPublicKey {
        do { return try ECDSAPublicKey(curve: curve, x962Representation: bytes, preparation: .manySignatures) } catch { throw BenchmarkError("benchmark key refused: \(error)") }
    }

    /// `r || s` from a DER signature of two INTEGERs (short-form lengths, as these are).
    private static func raw(_ der: [UInt8], width: Int) throws(BenchmarkError) -> [UInt8] {
        var index = 2
        var halves: [[UInt8]] = []
        while index + 1 < der.count, der[index] == 0x02 {
            let length = Int(der[index + 1])
            let magnitude = der[(index + 2)..<(index + 2 + length)].drop { $0 == 0 }
            guard magnitude.count <= width else { throw BenchmarkError("benchmark signature too wide") }
            halves.append([UInt8](repeating: 0, count: width - magnitude.count) + magnitude)
            index += 2 + length
        }
        guard halves.count == 2 else { throw BenchmarkError("benchmark signature is not two integers") }
        return halves[0] + halves[1]
    }

    private static func hexBytes(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8).map { $0 <= UInt8(ascii: "9") ? $0 - UInt8(ascii: "0") : $0 - UInt8(ascii: "a") + 10 }
        return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }
}

extension SignatureBenchmarks.OpenSSLSpeed {
    /// `openssl speed -seconds 1 ecdsap256 ecdsap384` from the PATH, its verify/s column.
    static func run() -> Self {
        guard let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            .map({ (directory: Substring) -> String in "\(directory)/openssl" }).first(where: { (candidate: String) in access(candidate, X_OK) == 0 })
        else { return .unavailable("openssl not found") }
        do {
            let version = try output(of: path, ["version"]).trimmingCharacters(in: .whitespacesAndNewlines)
            let text = try output(of: path, ["speed", "-seconds", "1", "ecdsap256", "ecdsap384"])
            guard let p256 = verifyRate(in: text, curve: "nistp256"), let p384 = verifyRate(in: text, curve: "nistp384") else {
                return .unavailable("openssl speed printed no verify/s for nistp256 and nistp384")
            }
            return .measured(p256: p256, p384: p384, version: version)
        } catch {
            return .unavailable("openssl speed failed: \(error)")
        }
    }

    /// The last number of the summary line `256 bits ecdsa (nistp256)   0.0000s   0.0001s  40588.0  13370.4`.
    static func verifyRate(in text: String, curve: String) -> Double? {
        for line in text.split(separator: "\n") where line.contains("ecdsa (\(curve))") {
            if let last = line.split(separator: " ").last, let value = Double(last) { return value }
        }
        return nil
    }

    /// Standard output of `path arguments` (standard error discarded); the child is stopped
    /// after `limit` seconds so a stuck tool cannot hang the run.
    private static func output(of path: String, _ arguments: [String], limit: Double = 60) throws(BenchmarkError) -> String {
        let pipe = try makePipe()
        let child: SpawnedProcess
        do {
            child = try SpawnedProcess(executable: path, arguments: arguments, standardOutput: pipe.write, standardErrorPath: "/dev/null")
        } catch {
            close(pipe.read)
            close(pipe.write)
            throw error
        }
        close(pipe.write)
        defer { close(pipe.read) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = MonotonicClock.now() + UInt64(limit * 1e9)
        while true {
            var descriptor = pollfd(fd: pipe.read, events: Int16(POLLIN), revents: 0)
            let remaining = Int64(deadline) - Int64(MonotonicClock.now())
            guard remaining > 0 else {
                child.stop()
                throw BenchmarkError("\(path) \(arguments.joined(separator: " ")) took more than \(Int(limit)) s")
            }
            if poll(&descriptor, 1, Int32(min(remaining / 1_000_000, 1000))) <= 0 { continue }
            let count = read(pipe.read, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        let status = child.waitForExit()
        guard child.exitCode == 0 else { throw BenchmarkError("\(path) \(arguments.joined(separator: " ")) ended with wait status \(status)") }
        return String(decoding: bytes, as: UTF8.self)
    }
}
