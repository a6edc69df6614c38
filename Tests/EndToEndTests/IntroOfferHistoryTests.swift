import Foundation
import ServiceRuntime
import TestSupport
import Testing

/// Introductory-offer eligibility follows everything the user ever bought in a subscription
/// group, not the product that decides the entitlement today: a subscriber who bought the
/// lifetime purchase too (or whose plan ended before it) has used the group's offer. Driven
/// through the real daemon with Stillwater (`Examples/Stillwater`), whose weekly plan has a
/// free week.
@Suite("Intro offer history", .timeLimit(.minutes(2)))
struct IntroOfferHistoryTests {
    static let group = "30500001"
    static let weekly = "app.stillwater.premium.weekly"

    struct Story: Sendable, CustomTestStringConvertible {
        var name: String
        var lines: [String]
        var eligible: Bool
        var ineligibleGroups: [String]
        var testDescription: String { name }
    }

    static let stories: [Story] = [
        Story(
            name: "subscribed weekly, then bought lifetime",
            lines: [
                AnyAppTests.transaction(id: "91", product: weekly, purchased: "2026-11-25T08:00:00Z", expires: "2026-12-02T08:00:00Z"),
                AnyAppTests.transaction(id: "92", product: "app.stillwater.forever", purchased: "2026-11-26T08:00:00Z", expires: nil),
            ],
            eligible: false, ineligibleGroups: [group]),
        Story(
            name: "weekly expired long ago, lifetime owned",
            lines: [
                AnyAppTests.transaction(id: "93", product: weekly, purchased: "2026-01-01T08:00:00Z", expires: "2026-01-08T08:00:00Z"),
                AnyAppTests.transaction(id: "94", product: "app.stillwater.forever", purchased: "2026-11-26T08:00:00Z", expires: nil),
            ],
            eligible: false, ineligibleGroups: [group]),
        Story(
            name: "lifetime only, never subscribed",
            lines: [AnyAppTests.transaction(id: "95", product: "app.stillwater.forever", purchased: "2026-11-26T08:00:00Z", expires: nil)],
            eligible: true, ineligibleGroups: []),
        Story(name: "never bought anything", lines: [], eligible: true, ineligibleGroups: []),
    ]

    @Test("check, products and the snapshot say whether the group's offer is still open, from every purchase ever made", arguments: stories)
    func eligibilityFollowsTheGroupsHistory(_ story: Story) async throws {
        try await AnyAppTests.App.with(name: story.name) { app in
            let daemon = try await AnyAppTests.startDaemon(app, group: "group.app.stillwater")
            let common = ["--container", app.container, "--catalog", app.catalog]
            if !story.lines.isEmpty {
                let ingest = try await BuiltTools.run(
                    "entitlementctl", ["ingest", "--wait", "-"] + common, input: story.lines.joined(separator: "\n") + "\n")
                #expect(ingest.status == 0, "\(ingest.standardError)")
            }
            let check = try await BuiltTools.run("entitlementctl", ["check", "courses", "--format", "json"] + common)
            #expect(try AnyAppTests.json(check.standardOutput)["introOfferEligible"] as? Bool == story.eligible, "\(check.standardOutput)")

            let products = try await BuiltTools.run("entitlementctl", ["products", "--format", "json"] + common)
            let listed = try #require(try AnyAppTests.json(products.standardOutput)["products"] as? [[String: Any]])
            let weekly = try #require(listed.first { $0["productId"] as? String == Self.weekly })
            #expect(weekly["introOfferEligible"] as? Bool == story.eligible, "\(products.standardOutput)")

            let status = try await BuiltTools.run("entitlementctl", ["status", "--format", "json"] + common)
            #expect(try AnyAppTests.json(status.standardOutput)["introOfferIneligibleGroups"] as? [String] == story.ineligibleGroups)
            let snapshot = try #require(try AnyAppTests.suite(app)["entitlementSnapshot"] as? [String: Any])
            #expect(snapshot["introOfferIneligibleGroups"] as? [String] == story.ineligibleGroups)
            #expect(await daemon.stop() == 0)
        }
    }
}
