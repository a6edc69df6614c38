import Testing

@testable import DemoTools

@Suite("The demo's wait for a follower's render")
struct DemoFollowerWaitTests {
    static let header = "watch app - 198x242 pt - generation 2 - now 2026-11-27 21:14:31 +00:00"

    @Test("A render of a later generation satisfies a wait for an earlier one: two quick publishes may reach a follower as one")
    func laterGenerationCounts() {
        #expect(DemoStage.hasRendered(generationAtLeast: 1, in: Self.header))
        #expect(DemoStage.hasRendered(generationAtLeast: 2, in: "widget | x\n" + Self.header + "\nreload: never"))
    }

    @Test("An earlier generation, no snapshot, or a generation number only as a prefix does not")
    func earlierDoesNot() {
        #expect(!DemoStage.hasRendered(generationAtLeast: 3, in: Self.header))
        #expect(!DemoStage.hasRendered(generationAtLeast: 1, in: "systemSmall - 170x170 pt - no snapshot - now 2026-11-27"))
        #expect(!DemoStage.hasRendered(generationAtLeast: 10, in: "systemSmall - 170x170 pt - generation 1 - now"))
        #expect(!DemoStage.hasRendered(generationAtLeast: 1, in: ""))
    }
}
