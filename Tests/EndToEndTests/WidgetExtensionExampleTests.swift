import Foundation
import ServiceRuntime
import TestSupport
import Testing

/// `Examples/WidgetExtension`, a package that depends on this one by path the way an app's widget
/// target would, must build on its own and follow a real daemon: locked with nothing bought,
/// unlocked after the lifetime story, locked again after the refund.
@Suite("Widget extension example", .timeLimit(.minutes(10)))
struct WidgetExtensionExampleTests {
    static let packagePath = BuiltTools.packageRoot + "/Examples/WidgetExtension"
    /// Kept between runs (git ignores `.build-*`), so a second `swift test` only relinks.
    static let scratchPath = BuiltTools.packageRoot + "/.build-example"

    /// Builds the example with its own scratch path: `swift test` holds the lock on `.build`.
    /// One job, to leave the other core to the tests running beside it. An incremental build
    /// over a scratch path left by older sources can fail where a clean one succeeds (SwiftPM
    /// reusing a build plan that predates a new file), so a failed build is tried once more
    /// from scratch; a real compile error fails both.
    static func buildExample() async throws -> String {
        let started = ContinuousClock.now
        var failure = try await build()
        if let first = failure {
            print("Widget extension example: incremental build failed, building from scratch: \(first)")
            try? FileManager.default.removeItem(atPath: scratchPath)
            failure = try await build()
        }
        if let failure { throw FixtureError(failure) }
        print("Widget extension example: built in \(ContinuousClock.now - started)")
        return scratchPath + "/debug/GekoWidget"
    }

    /// One `swift build` of the example: `nil` when it succeeded, else what it printed.
    private static func build() async throws -> String? {
        let (executable, arguments) = BuiltTools.lowPriority(
            ["swift", "build", "--package-path", packagePath, "--scratch-path", scratchPath, "--jobs", "1"])
        let build = try ChildProcess(executable: executable, arguments: arguments, environment: BuiltTools.environment())
        guard let status = await build.waitForExit(timeout: .seconds(270)) else {
            await build.stop(grace: .seconds(2))
            return "swift build of the example did not finish: \(build.standardOutput)\(build.standardError)"
        }
        return status == 0 ? nil : "swift build of the example failed (\(status)): \(build.standardOutput)\(build.standardError)"
    }

    @Test("The example builds against the package and follows a daemon: locked, unlocked, refunded")
    func followsDaemon() async throws {
        let example = try await Self.buildExample()
        let stories = BuiltTools.packageRoot + "/Examples/Events"
        try await Fixture.with { fixture in
            let daemon = try await fixture.startDaemon()
            let lines = TimestampedLines()
            let follower = try ChildProcess(
                executable: example, arguments: fixture.common + ["--follow"], environment: BuiltTools.environment()
            ) { stream, line in
                if stream == .standardOutput { lines.append(line) }
            }
            func shows(_ text: String) async -> Bool {
                await ChildProcess.wait(timeout: .seconds(20)) { lines.first { $1 == text } != nil }
            }
            #expect(await shows("widgets: locked (notEntitled) -> app://paywall?feature=widgets&reason=notEntitled"), "\(follower.standardOutput)")

            let purchase = try await fixture.run("entitlementctl", ["ingest", "--wait", stories + "/lifetime.jsonl"] + fixture.common)
            #expect(purchase.status == 0, "ingest: \(purchase.standardError)")
            #expect(await shows("widgets: unlocked"), "\(follower.standardOutput)")
            #expect(await shows("watch app: unlocked"), "\(follower.standardOutput)")

            // The one-shot form reads the same snapshot.
            let once = try ChildProcess(executable: example, arguments: fixture.common, environment: BuiltTools.environment())
            #expect(await once.waitForExit(timeout: .seconds(20)) == 0, "\(once.standardError)")
            #expect(once.standardOutput.hasPrefix("widgets: unlocked\n"), "\(once.standardOutput)")
            #expect(once.standardOutput.contains("reload never"))

            let refund = try await fixture.run("entitlementctl", ["ingest", "--wait", stories + "/refund.jsonl"] + fixture.common)
            #expect(refund.status == 0, "ingest: \(refund.standardError)")
            #expect(await shows("widgets: locked (revoked) -> app://paywall?feature=widgets&reason=revoked"), "\(follower.standardOutput)")
            #expect(await shows("watch app: paywall (revoked) \"The watch app needs Geko Plus\""), "\(follower.standardOutput)")
            #expect(follower.standardError.isEmpty, "\(follower.standardError)")

            _ = await follower.stop()
            #expect(await daemon.stop() == 0)
        }
    }
}
