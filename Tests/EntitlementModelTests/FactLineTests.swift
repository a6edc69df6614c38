import Foundation
import Testing
@testable import StoreKitFormats

/// A checkpoint's fact line is read member by member by the transaction's one reader: the same
/// transaction as the ingested line, whatever the order of its members, and a repeated key refused.
@Suite(.timeLimit(.minutes(1))) struct FactLineTests {
    @Test func aFactLineReadsAsTheIngestedLineInAnyMemberOrder() throws {
        let ingested = try EventDecoder.decode(line: Fixtures.xcodeSample.utf8, signatures: .optional)
        guard case .transaction(let transaction) = try #require(ingested.first) else {
            Issue.record("expected a transaction, got \(ingested)")
            return
        }
        guard case .object(let members) = transaction.jsonRepresentation else { throw FactLineError.notAnObject }
        // Reversed key order, by hand: the serialisation would sort them again.
        let reversed = "{" + members.keys.sorted(by: >).map { key in
            JSONValue.string(key).serialized + ":" + members[key]!.serialized
        }.joined(separator: ",") + "}"
        #expect(try EventDecoder.fact(line: Array(reversed.utf8)[...]) == .transaction(transaction))
        #expect(try EventDecoder.fact(line: Array(transaction.jsonRepresentation.serialized.utf8)[...]) == .transaction(transaction))
    }

    @Test(arguments: ["transactionId", "productId", "storefront", "somethingUnknown"])
    func aRepeatedKeyIsRefused(key: String) {
        let line = #"{"transactionId":"7","productId":"p","purchaseDate":1767225600000,"storefront":"USA","somethingUnknown":1,"\#(key)":"again"}"#
        #expect(throws: EventDecodingError.self) { try EventDecoder.fact(line: Array(line.utf8)[...]) }
    }

    @Test func aMissingRequiredFieldIsNamed() {
        let line = #"{"transactionId":"7","purchaseDate":1767225600000}"#
        #expect { try EventDecoder.fact(line: Array(line.utf8)[...]) } throws: { "\($0)".contains("missing productId") }
    }

    enum FactLineError: Error { case notAnObject }
}
