import Foundation
import TestSupport
import Testing

/// The purchase stories in `Examples/Events`, each run through `entitlementctl evaluate` at the
/// instant the README's tour uses, must give the entitlement state the story stands for.
@Suite("Example stories", .timeLimit(.minutes(2)))
struct ExampleStoryTests {
    static let directory = BuiltTools.packageRoot + "/Examples/Events"
    static let monthly = "com.irenews.geko.plus.monthly"
    static let annual = "com.irenews.geko.plus.annual"
    static let lifetime = "com.irenews.geko.plus.lifetime"

    /// What `plus` must be for `files` evaluated at `now`.
    struct Story: Sendable, CustomTestStringConvertible {
        var files: [String]
        var now: String
        var active: Bool
        var state: String
        var productId: String?
        /// `nil`: the JSON must say `null` (lifetime, or no access).
        var expiresAt: String?
        var periodType = "normal"
        var ownership = "purchased"
        /// `nil`: not part of what the story means.
        var willRenew: Bool?

        var testDescription: String { "\(files.joined(separator: " + ")) at \(now)" }
    }

    static let stories: [Story] = [
        Story(files: ["free"], now: "2026-11-22T10:00:00Z", active: false, state: "notPurchased", productId: nil, expiresAt: nil),
        Story(
            files: ["trial"], now: "2026-11-22T10:00:00Z", active: true, state: "subscribed", productId: monthly,
            expiresAt: "2026-11-27T09:00:00Z", periodType: "trial", willRenew: true),
        Story(
            files: ["trial-ends"], now: "2026-11-25T10:00:00Z", active: true, state: "subscribed", productId: monthly,
            expiresAt: "2026-11-27T09:00:00Z", periodType: "trial", willRenew: false),
        Story(
            files: ["trial-ends"], now: "2026-11-28T10:00:00Z", active: false, state: "expired", productId: monthly,
            expiresAt: nil, periodType: "trial", willRenew: false),
        Story(files: ["lifetime"], now: "2026-11-22T10:00:00Z", active: true, state: "purchased", productId: lifetime, expiresAt: nil),
        Story(files: ["refund"], now: "2026-11-23T10:00:00Z", active: false, state: "revoked", productId: lifetime, expiresAt: nil),
        // The tour ingests the purchase, then the refund: the refunded version is the newer one.
        Story(files: ["lifetime", "refund"], now: "2026-11-23T10:00:00Z", active: false, state: "revoked", productId: lifetime, expiresAt: nil),
        Story(
            files: ["renewal"], now: "2026-11-22T10:00:00Z", active: true, state: "subscribed", productId: monthly,
            expiresAt: "2026-12-01T09:00:00Z", willRenew: true),
        Story(
            files: ["upgrade"], now: "2026-11-22T10:00:00Z", active: true, state: "subscribed", productId: annual,
            expiresAt: "2027-11-15T12:00:00Z", willRenew: true),
        Story(
            files: ["grace"], now: "2026-11-22T10:00:00Z", active: true, state: "inGracePeriod", productId: monthly,
            expiresAt: "2026-12-06T09:00:00Z"),
        Story(files: ["grace"], now: "2026-12-07T10:00:00Z", active: false, state: "inBillingRetryPeriod", productId: monthly, expiresAt: nil),
        Story(
            files: ["family-sharing"], now: "2026-11-22T10:00:00Z", active: true, state: "subscribed", productId: annual,
            expiresAt: "2027-11-10T09:00:00Z", ownership: "familyShared"),
        Story(
            files: ["notification"], now: "2026-11-22T10:00:00Z", active: true, state: "subscribed", productId: annual,
            expiresAt: "2027-11-21T09:00:00Z", willRenew: true),
    ]

    @Test("Each story evaluates to the state it stands for", arguments: stories)
    func story(_ story: Story) async throws {
        var input = ""
        for file in story.files {
            input += try String(contentsOfFile: "\(Self.directory)/\(file).jsonl", encoding: .utf8)
        }
        let result = try await BuiltTools.run(
            "entitlementctl", ["evaluate", "--catalog", BuiltTools.defaultCatalog, "--now", story.now, "-"], input: input)
        #expect(result.status == 0, "stderr: \(result.standardError)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        let plus = try #require((object["entitlements"] as? [String: Any])?["plus"] as? [String: Any], "\(result.standardOutput)")
        #expect(plus["active"] as? Bool == story.active)
        #expect(plus["state"] as? String == story.state)
        #expect(plus["productId"] as? String == story.productId)
        #expect(story.productId != nil || plus["productId"] is NSNull)
        #expect(plus["expiresAt"] as? String == story.expiresAt)
        #expect(story.expiresAt != nil || plus["expiresAt"] is NSNull)
        #expect(plus["periodType"] as? String == story.periodType)
        #expect(plus["ownership"] as? String == story.ownership)
        if let willRenew = story.willRenew { #expect(plus["willRenew"] as? Bool == willRenew) }
    }

    @Test("Every story file in Examples/Events has an expectation here")
    func everyFileIsCovered() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory)
            .filter { $0.hasSuffix(".jsonl") }.map { String($0.dropLast(".jsonl".count)) }
        let covered = Set(Self.stories.flatMap(\.files))
        #expect(files.count >= 10)
        #expect(Set(files).subtracting(covered).isEmpty, "stories without an expectation: \(Set(files).subtracting(covered).sorted())")
    }
}
