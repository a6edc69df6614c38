import Foundation
import Testing
@testable import StoreKitFormats

@Suite(.timeLimit(.minutes(1))) struct EventDecoderTests {
    @Test func decodesApplesXcodeSampleTransaction() throws {
        let events = try EventDecoder.decode(line: Fixtures.xcodeSample.utf8, signatures: .optional)
        guard case .transaction(let t) = try #require(events.first), events.count == 1 else {
            Issue.record("expected one transaction, got \(events)")
            return
        }
        #expect(t.transactionId == "0")
        #expect(t.originalTransactionId == "0")
        #expect(t.productId == Fixtures.monthly)
        #expect(t.purchaseDate == Date(timeIntervalSince1970: 1697679936049.7297 / 1000))
        #expect(t.expiresDate == Date(timeIntervalSince1970: 1700358336049.7297 / 1000))
        #expect(t.signedDate == Date(timeIntervalSince1970: 1697679936056.4709 / 1000))
        #expect(t.type == .autoRenewable)
        #expect(t.offerType == .introductory)
        #expect(t.offerDiscountType == .freeTrial)
        #expect(t.inAppOwnershipType == .purchased)
        #expect(t.environment == .xcode)
        #expect(t.storefront == "USA")
        #expect(t.storefrontId == "143441")
        #expect(t.transactionReason == .purchase)
        #expect(t.quantity == 1)
        #expect(t.price == 0)
        #expect(t.currency == "USD")
        #expect(t.webOrderLineItemId == "0")
        #expect(t.isUpgraded == false)
    }

    @Test func keepsUnknownEnumerationValuesAndIgnoresUnknownFields() throws {
        let line = Fixtures.transaction(id: "7", purchased: "2025-01-01T00:00:00Z", expires: "2025-02-01T00:00:00Z", [
            "type": "Subscription From The Future", "inAppOwnershipType": "BORROWED", "offerType": .int(9),
            "offerDiscountType": "HALF_OFF", "revocationType": "SOMETHING_NEW", "newField": .object(["x": .array([.null])]),
            "environment": "Moon",
        ])
        guard case .transaction(let t) = try #require(EventDecoder.decode(line: line.utf8, signatures: .optional).first) else {
            Issue.record("not a transaction")
            return
        }
        #expect(t.type.rawValue == "Subscription From The Future")
        #expect(t.inAppOwnershipType.rawValue == "BORROWED")
        #expect(t.offerType?.rawValue == 9)
        #expect(t.offerDiscountType?.rawValue == "HALF_OFF")
        #expect(t.revocationType?.rawValue == "SOMETHING_NEW")
        #expect(t.environment == .unknown("Moon"))
    }

    @Test func decodesRenewalInfo() throws {
        let line = Fixtures.renewal(original: "42", signed: "2025-03-01T00:00:00Z", [
            "isInBillingRetryPeriod": true, "gracePeriodExpiresDate": .double(Fixtures.ms("2025-03-17T00:00:00Z")),
            "expirationIntent": .int(2), "autoRenewStatus": .int(0), "productId": .string(Fixtures.annual),
            "renewalDate": .double(Fixtures.ms("2025-03-01T00:00:00Z")),
        ])
        let events = try EventDecoder.decode(line: line.utf8, signatures: .optional)
        #expect(events == [.renewalInfo(RenewalInfo(
            originalTransactionId: "42", autoRenewStatus: false, autoRenewProductId: Fixtures.monthly, productId: Fixtures.annual,
            isInBillingRetryPeriod: true, gracePeriodExpiresDate: Fixtures.date("2025-03-17T00:00:00Z"), expirationIntent: .billingError,
            signedDate: Fixtures.date("2025-03-01T00:00:00Z"), renewalDate: Fixtures.date("2025-03-01T00:00:00Z"), environment: .xcode))])
    }

    static let transactionPayload = Fixtures.transaction(
        id: "100", original: "90", purchased: "2025-01-01T00:00:00Z", expires: "2025-02-01T00:00:00Z",
        ["bundleId": .null, "environment": .null])
    static let renewalPayload = Fixtures.renewal(original: "90", signed: "2025-01-01T00:00:00Z", ["environment": .null])

    @Test func decodesANotificationWithSignedPayloads() throws {
        let notification = JSONValue.object([
            "notificationType": "DID_RENEW", "subtype": "", "notificationUUID": "6a5f8e2c-0000-4000-8000-000000000001",
            "version": "2.0", "signedDate": .double(Fixtures.ms("2025-01-01T00:00:01Z")),
            "data": .object([
                "bundleId": .string(Fixtures.bundleId), "environment": "Xcode", "appAppleId": .int(1),
                "signedTransactionInfo": .string(Fixtures.jws(Self.transactionPayload)),
                "signedRenewalInfo": .string(Fixtures.jws(Self.renewalPayload)),
            ]),
        ]).serialized
        let events = try EventDecoder.decode(line: notification.utf8, signatures: .optional)
        #expect(events.count == 2)
        guard case .transaction(let t) = events.first, case .renewalInfo(let r) = events.last else {
            Issue.record("wrong shapes: \(events)")
            return
        }
        #expect(t.transactionId == "100")
        #expect(t.originalTransactionId == "90")
        // bundleId and environment come from the notification's data when the payload lacks them.
        #expect(t.bundleId == Fixtures.bundleId)
        #expect(t.environment == .xcode)
        #expect(r.originalTransactionId == "90")
        #expect(r.environment == .xcode)

        // The raw notification body wraps the same notification in one more JWS.
        let wrapped = JSONValue.object(["signedPayload": .string(Fixtures.jws(notification))]).serialized
        #expect(try EventDecoder.decode(line: wrapped.utf8, signatures: .optional) == events)
    }

    @Test func notificationWithoutSignedDataYieldsNoEvents() throws {
        let line = #"{"notificationType":"TEST","notificationUUID":"u","data":{"bundleId":"com.irenews.geko","environment":"Xcode"}}"#
        #expect(try EventDecoder.decode(line: line.utf8, signatures: .optional) == [])
    }

    @Test func decodesAllSubscriptionStatusesResponse() throws {
        let line = JSONValue.object([
            "bundleId": .string(Fixtures.bundleId), "environment": "Xcode", "appAppleId": .int(1),
            "data": .array([.object([
                "subscriptionGroupIdentifier": "21400001",
                "lastTransactions": .array([.object([
                    "originalTransactionId": "90", "status": .int(1),
                    "signedTransactionInfo": .string(Fixtures.jws(Self.transactionPayload)),
                    "signedRenewalInfo": .string(Fixtures.jws(Self.renewalPayload)),
                ])]),
            ])]),
        ]).serialized
        let events = try EventDecoder.decode(line: line.utf8, signatures: .optional)
        #expect(events.count == 2)
        if case .transaction(let t) = events.first { #expect(t.bundleId == Fixtures.bundleId) } else { Issue.record("no transaction") }
    }

    struct BadLine: Sendable, CustomStringConvertible {
        var name: String
        var line: String
        var message: String
        var description: String { name }
    }

    static let badLines: [BadLine] = [
        .init(name: "not JSON", line: "hello", message: "line is not JSON: invalid JSON at byte 0: unexpected character"),
        .init(name: "array", line: "[1,2]", message: "line is not a JSON object"),
        .init(name: "unknown shape", line: #"{"hello":1}"#,
              message: "line is neither a transaction, a renewal info nor a notification (no transactionId, autoRenewStatus or notificationType)"),
        .init(name: "missing productId", line: #"{"transactionId":"1","purchaseDate":1700000000000}"#, message: "transaction: missing productId"),
        .init(name: "missing purchaseDate", line: #"{"transactionId":"1","productId":"p"}"#, message: "transaction: missing purchaseDate"),
        .init(name: "date as string", line: #"{"transactionId":"1","productId":"p","purchaseDate":"yesterday"}"#,
              message: "purchaseDate: not a finite number"),
        .init(name: "infinite date", line: #"{"transactionId":"1","productId":"p","purchaseDate":1e999}"#, message: "purchaseDate: not a finite number"),
        .init(name: "negative date", line: #"{"transactionId":"1","productId":"p","purchaseDate":-5}"#,
              message: "purchaseDate: -5.0 ms is out of range (before 2008 or after 2200)"),
        .init(name: "date after 2200", line: #"{"transactionId":"1","productId":"p","purchaseDate":1700000000000,"expiresDate":9000000000000}"#,
              message: "expiresDate: 9000000000000.0 ms is out of range (before 2008 or after 2200)"),
        .init(name: "date in seconds", line: #"{"transactionId":"1","productId":"p","purchaseDate":1700000000}"#,
              message: "purchaseDate: 1700000000.0 ms is out of range (before 2008 or after 2200)"),
        .init(name: "offerType string", line: #"{"transactionId":"1","productId":"p","purchaseDate":1700000000000,"offerType":"intro"}"#,
              message: "offerType: not an integer"),
        .init(name: "price beyond Int64", line: #"{"transactionId":"1","productId":"p","purchaseDate":1700000000000,"price":1e30}"#,
              message: "price: 1e+30 is out of range for a price"),
        .init(name: "renewal without id", line: #"{"originalTransactionId":"","autoRenewStatus":1}"#,
              message: "originalTransactionId: not an identifier string"),
        .init(name: "JWS with two parts", line: #"{"notificationType":"DID_RENEW","data":{"signedTransactionInfo":"a.b"}}"#,
              message: "data.signedTransactionInfo: JWS has 2 parts, expected 3"),
        .init(name: "JWS payload not base64", line: #"{"notificationType":"DID_RENEW","data":{"signedTransactionInfo":"YQ.!!!.c"}}"#,
              message: "data.signedTransactionInfo: JWS payload is not base64url"),
        .init(name: "JWS payload missing field", line: "{\"notificationType\":\"DID_RENEW\",\"data\":{\"signedTransactionInfo\":\""
              + Fixtures.jws(#"{"transactionId":"1","purchaseDate":1700000000000}"#) + "\"}}",
              message: "data.signedTransactionInfo: missing productId"),
        .init(name: "JWS payload bad date", line: "{\"notificationType\":\"DID_RENEW\",\"data\":{\"signedTransactionInfo\":\""
              + Fixtures.jws(#"{"transactionId":"1","productId":"p","purchaseDate":true}"#) + "\"}}",
              message: "data.signedTransactionInfo.purchaseDate: not a finite number"),
    ]

    @Test(arguments: badLines)
    func refusesBadLinesWithOneLineNamingTheField(_ row: BadLine) {
        do {
            let events = try EventDecoder.decode(line: row.line.utf8, signatures: .optional)
            Issue.record("\(row.name): decoded \(events)")
        } catch {
            #expect(error.description == row.message)
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func decodesFromDataAndToleratesWhitespace() throws {
        let events = try EventDecoder.decode(line: Data(("  " + Fixtures.xcodeSample + "\r\n").utf8), signatures: .optional)
        #expect(events.count == 1)
    }

    @Test func catalogRefusesForeignBundleAndEnvironment() throws {
        let catalog = try Fixtures.catalog()
        let ok = try Fixtures.events([Fixtures.xcodeSample])
        for event in ok { try catalog.validate(event) }

        let otherBundle = try Fixtures.events([Fixtures.transaction(id: "1", purchased: "2025-01-01T00:00:00Z", ["bundleId": "com.other"])])
        #expect(throws: EventDecodingError.foreign(field: "bundleId", expected: "com.irenews.geko", found: "com.other")) {
            try catalog.validate(otherBundle[0])
        }
        let sandbox = try Fixtures.events([Fixtures.transaction(id: "1", purchased: "2025-01-01T00:00:00Z", ["environment": "Sandbox"])])
        do {
            try catalog.validate(sandbox[0])
            Issue.record("accepted a Sandbox transaction")
        } catch {
            #expect(error.description == "environment: 'Sandbox' is not the catalog's 'Xcode'; refusing data from another environment")
        }
        let renewal = try Fixtures.events([Fixtures.renewal(original: "1", signed: "2025-01-01T00:00:00Z", ["environment": "Production"])])
        #expect(throws: EventDecodingError.foreign(field: "environment", expected: "Xcode", found: "Production")) {
            try catalog.validate(renewal[0])
        }
        let bareRenewal = try Fixtures.events([Fixtures.renewal(original: "1", signed: "2025-01-01T00:00:00Z", ["environment": .null])])
        try catalog.validate(bareRenewal[0])
    }
}
