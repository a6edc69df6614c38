import Foundation
@testable import SignedData
import Testing

@Suite("Strict base64") struct Base64Tests {
    @Test("base64url round-trips every length from 0 to 64 bytes and agrees with Foundation")
    func roundTrip() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...64 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let encoded = Base64.encode(url: bytes)
            #expect(Base64.decode(url: encoded) == bytes)
            let standard = Data(bytes).base64EncodedString()
            #expect(Base64.decode(standard: standard) == bytes)
            #expect(encoded == standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: ""))
        }
    }

    @Test("Refused: other alphabet, padding in base64url, missing padding in standard, stray bits, white space, a lone symbol",
          arguments: [
            ("url", "ab+c"), ("url", "ab/c"), ("url", "YQ=="), ("url", "YR"), ("url", "Y Q"), ("url", "YQ\n"), ("url", "A"),
            ("url", "AAAAA"), ("standard", "YQ"), ("standard", "YR=="), ("standard", "ab-c"), ("standard", "Y==="),
            ("standard", "=YQ="), ("standard", "YQ=a"),
          ])
    func refused(alphabet: String, text: String) {
        if alphabet == "url" { #expect(Base64.decode(url: text) == nil) } else { #expect(Base64.decode(standard: text) == nil) }
    }

    @Test("Accepted edge cases") func accepted() {
        #expect(Base64.decode(url: "") == [])
        #expect(Base64.decode(url: "YQ") == [0x61])
        #expect(Base64.decode(url: "_-8") == [0xFF, 0xEF])
        #expect(Base64.decode(standard: "YQ==") == [0x61])
        #expect(Base64.decode(standard: "/+8=") == [0xFF, 0xEF])
    }
}
