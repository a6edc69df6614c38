import Foundation
import Testing
@testable import Entitlements

@Suite struct PaywallEventTests {
    static let time = Fixtures.date("2026-11-22T10:00:00.250Z")

    @Test(arguments: PaywallEvent.Kind.allCases)
    func recordRoundTrips(_ kind: PaywallEvent.Kind) throws {
        let event = PaywallEvent(kind, feature: "groups", reason: .limitReached, time: Self.time)
        #expect(try PaywallEvent(jsonLine: event.jsonLine) == event)
        #expect(!event.jsonLine.contains("\n"))
    }

    @Test func recordHasTheDocumentedShape() {
        let event = PaywallEvent(.paywallShown, feature: "groups", reason: .limitReached, time: Self.time)
        #expect(event.jsonLine == #"{"event":"paywallShown","feature":"groups","reason":"limitReached","time":"2026-11-22T10:00:00.250Z"}"#)
    }

    @Test func shownOnlyForLockedDecisions() {
        let copy = PaywallCopy(title: "t", message: "m", callToAction: "c")
        let locked = GateDecision.locked(Paywall(feature: "cards", reason: .expired, copy: copy))
        #expect(PaywallEvent.shown(for: locked, time: Self.time) == PaywallEvent(.paywallShown, feature: "cards", reason: .expired, time: Self.time))
        #expect(PaywallEvent.shown(for: .unlocked(remaining: 2), time: Self.time) == nil)
    }

    @Test(arguments: [
        ("not json", "not JSON"),
        (#"{"event":"paywallOpened","feature":"x","reason":"expired","time":"2026-01-01T00:00:00Z"}"#, "event: unknown event"),
        (#"{"event":"paywallShown","feature":"x","reason":"bored","time":"2026-01-01T00:00:00Z"}"#, "reason: unknown reason"),
        (#"{"event":"paywallShown","feature":"x","reason":"expired","time":"yesterday"}"#, "time: not an ISO 8601 date"),
        (#"{"event":"paywallShown","reason":"expired","time":"2026-01-01T00:00:00Z"}"#, "feature"),
    ])
    func badRecordsNameTheProblem(_ line: String, _ expected: String) {
        #expect {
            try PaywallEvent(jsonLine: line)
        } throws: { error in
            (error as? PaywallEventDecodingError)?.message.contains(expected) == true
        }
    }
}
