import Foundation
@testable import SignedData
import Testing

@Suite("Strict DER and X.509 times") struct DERTests {
    @Test("Refused encodings", arguments: [
        ("indefinite length", [0x30, 0x80, 0x00, 0x00]),
        ("long form for a short length", [0x04, 0x81, 0x01, 0x00]),
        ("length with a leading zero byte", [0x04, 0x82, 0x00, 0x81] + [UInt8](repeating: 0, count: 0x81)),
        ("length past the end", [0x04, 0x05, 0x00]),
        ("multi-byte tag", [0x1F, 0x81, 0x01, 0x00]),
        ("missing length", [0x04]),
        ("five length bytes", [0x04, 0x85, 0x01, 0x00, 0x00, 0x00, 0x00]),
    ] as [(String, [UInt8])])
    func refusedHeaders(name: String, bytes: [UInt8]) {
        var reader = DERReader(bytes)
        #expect(throws: DERError.self, "\(name)") { _ = try reader.next() }
    }

    @Test("A long-form length of exactly 128 is read") func longForm() throws {
        var reader = DERReader([0x04, 0x81, 0x80] + [UInt8](repeating: 7, count: 128))
        let element = try reader.next()
        #expect(element.content.count == 128)
        #expect(reader.isAtEnd)
    }

    @Test("BOOLEAN is 0x00 or 0xFF; INTEGER is minimal") func scalars() throws {
        var yes = DERReader([0x01, 0x01, 0xFF]), no = DERReader([0x01, 0x01, 0x00]), odd = DERReader([0x01, 0x01, 0x01])
        #expect(try yes.boolean("b") == true)
        #expect(try no.boolean("b") == false)
        #expect(throws: DERError.self) { try odd.boolean("b") }
        var padded = DERReader([0x02, 0x02, 0x00, 0x7F]), negativePadded = DERReader([0x02, 0x02, 0xFF, 0x80])
        var needed = DERReader([0x02, 0x02, 0x00, 0x80]), empty = DERReader([0x02, 0x00])
        #expect(throws: DERError.self) { try padded.integer("i") }
        #expect(throws: DERError.self) { try negativePadded.integer("i") }
        #expect(throws: DERError.self) { try empty.integer("i") }
        #expect(Array(try needed.integer("i")) == [0x00, 0x80])
    }

    @Test("OBJECT IDENTIFIER text round trip and malformed bodies") func objectIdentifiers() {
        #expect(DERObjectIdentifier.appleReceiptSigningLeaf.description == "1.2.840.113635.100.6.11.1")
        #expect(DERObjectIdentifier.ecPublicKey.encoded == [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01])
        #expect(DERObjectIdentifier(encoded: [0x2A, 0x86]) == nil)
        #expect(DERObjectIdentifier(encoded: [0x2A, 0x80, 0x01]) == nil)
        #expect(DERObjectIdentifier(encoded: []) == nil)
    }

    static func time(_ tag: UInt8, _ text: String) throws(DERError) -> Int64 {
        let bytes = [tag, UInt8(text.utf8.count)] + Array(text.utf8)
        return try X509Time.seconds(DERElement(tag: tag, encoding: 0..<bytes.count, content: 2..<bytes.count), in: bytes, "t")
    }

    @Test("UTCTime and GeneralizedTime") func times() throws {
        #expect(try Self.time(0x17, "700101000000Z") == 0)
        #expect(try Self.time(0x17, "491231235959Z") == 2_524_607_999)
        #expect(try Self.time(0x17, "500101000000Z") == -631_152_000)
        #expect(try Self.time(0x18, "20390430181906Z") == 2_187_800_346)
        #expect(try Self.time(0x17, "240229000000Z") == 1_709_164_800)
        for (tag, text) in [(0x17, "230229000000Z"), (0x17, "2301010000Z"), (0x17, "230101000000+0100"), (0x18, "230101000000Z"),
                            (0x17, "231301000000Z"), (0x17, "230101240000Z"), (0x18, "20230101000000.5Z"), (0x04, "230101000000Z")] as [(UInt8, String)] {
            #expect(throws: DERError.self, "\(text)") { try Self.time(tag, text) }
        }
    }
}
