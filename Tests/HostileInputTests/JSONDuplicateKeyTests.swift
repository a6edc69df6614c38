import StoreKitFormats
import Testing

/// A repeated key in one JSON object is refused: the corpus found
/// `{"transactionId":"1",…,"transactionId":"2"}` accepted with the last value winning, while
/// another reader (the upstream verifier) may take the first.
@Suite("JSON objects with a repeated key are refused")
struct JSONDuplicateKeyTests {
    @Test("Transaction lines with a repeated key", arguments: [
        #"{"transactionId":"1","productId":"a","purchaseDate":1763769600000,"transactionId":"2"}"#,
        #"{"transactionId":"1","productId":"a","purchaseDate":1763769600000,"productId":"b"}"#,
        #"{"transactionId":"1","productId":"a","purchaseDate":1763769600000,"x":{"k":1,"k":2}}"#,
    ])
    func repeatedKey(line: String) {
        #expect {
            _ = try EventDecoder.decode(line: line.utf8, signatures: .optional)
        } throws: { error in
            "\(error)".contains("duplicate key")
        }
    }

    @Test("A key that repeats only in different objects is fine")
    func sameKeyInDifferentObjects() throws {
        let events = try EventDecoder.decode(line: #"{"transactionId":"1","productId":"a","purchaseDate":1763769600000,"x":{"transactionId":"2"}}"#.utf8, signatures: .optional)
        #expect(events.count == 1)
    }

    @Test("The message stays on one line whatever the key holds")
    func keyWithNewline() {
        #expect {
            _ = try EventDecoder.decode(line: #"{"a\nb":1,"a\nb":2}"#.utf8, signatures: .optional)
        } throws: { error in
            !"\(error)".contains("\n")
        }
    }
}
