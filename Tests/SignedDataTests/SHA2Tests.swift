import Foundation
import Cryptography
import TestSupport
import Testing

/// SHA-256 and SHA-384 on the FIPS 180 examples, and against coreutils' `sha256sum` /
/// `sha384sum` on seeded random inputs of every length from 0 to 300 bytes (every padding
/// case: one block, two blocks, the boundary lengths).
@Suite struct SHA2Tests {
    static let abc = Array("abc".utf8)
    static let twoBlock256 = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
    static let twoBlock512 = Array(
        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu".utf8)
    static let millionA = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)

    @Test func sha256StandardVectors() {
        #expect(hexString(SHA256.hash([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hexString(SHA256.hash(Self.abc)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hexString(SHA256.hash(Self.twoBlock256)) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(hexString(SHA256.hash(Self.millionA)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func sha384StandardVectors() {
        #expect(hexString(SHA384.hash([])) == "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b")
        #expect(hexString(SHA384.hash(Self.abc)) == "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7")
        #expect(hexString(SHA384.hash(Self.twoBlock512)) == "09330c33f71147e83d192fc782cd1b4753111b173b3b05d22fa08086e3b0f712fcc7c71a557e2db966c3e9fa91746039")
        #expect(hexString(SHA384.hash(Self.millionA)) == "9d0e1809716474cb086e834e310a4a1ced149e9c00f248527972cec5704c2a5b07b8b3dc38ecc4ebae97ddd87f3d8985")
    }

    /// Non-contiguous collections (a lazy map, a reversed view) hash like their bytes copied out.
    @Test func anyCollectionHashesLikeItsBytes() {
        let bytes = (0..<200).map { UInt8($0) }
        #expect(SHA256.hash(bytes.reversed()) == SHA256.hash(Array(bytes.reversed())))
        #expect(SHA384.hash(bytes.lazy.map { $0 ^ 0x5a }) == SHA384.hash(bytes.map { $0 ^ 0x5a }))
        #expect(SHA256.hash(bytes[17..<190]) == SHA256.hash(Array(bytes[17..<190])))
    }

    /// coreutils is part of every Linux system this package runs on, so a missing tool fails
    /// the test (naming it) rather than skipping the only independent reference.
    @Test(arguments: [("sha256sum", 32), ("sha384sum", 48)])
    func matchesCoreutilsOnEveryLengthUpTo300(tool: String, digestLength: Int) async throws {
        let path = try #require(["/usr/bin/\(tool)", "/bin/\(tool)"].first { FileManager.default.isExecutableFile(atPath: $0) },
                                "\(tool) not found: this test needs it as the reference")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sha2-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        var random = SplitMix(seed: UInt64(digestLength))
        var inputs: [[UInt8]] = []
        var names: [String] = []
        for length in 0...300 {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let name = "input-\(length)"
            try Data(bytes).write(to: directory.appendingPathComponent(name))
            inputs.append(bytes)
            names.append(name)
        }
        let run = try await BuiltTools.run(executable: path, names, workingDirectory: directory.path)
        #expect(run.status == 0, "\(tool): \(run.standardError)")
        let text = run.standardOutput
        var expected: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count == 2 { expected[String(fields[1])] = String(fields[0]) }
        }
        #expect(expected.count == inputs.count)
        for (name, bytes) in zip(names, inputs) {
            let ours = digestLength == 32 ? SHA256.hash(bytes) : SHA384.hash(bytes)
            #expect(ours.count == digestLength)
            #expect(hexString(ours) == expected[name], "\(tool) on \(bytes.count) bytes")
        }
    }
}
