import Dispatch
import EntitlementModel
import Foundation
import EntitlementDefaults
import SharedDefaults
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(1))) struct PaywallAnalyticsLogTests {
    static let time = Date(timeIntervalSince1970: 1_790_000_000)

    @Test func appendsEventsAsJSONLinesInOrder() throws {
        try withTemporaryDirectory { container in
            let log = PaywallAnalyticsLog(container: container)
            #expect(try log.events() == [])
            let events = [
                PaywallEvent(.paywallShown, feature: "groups", reason: .limitReached, time: Self.time),
                PaywallEvent(.paywallDismissed, feature: "groups", reason: .limitReached, time: Self.time + 5),
                PaywallEvent(.upgradedFromPaywall, feature: "groups", reason: .limitReached, time: Self.time + 9),
            ]
            for event in events { try log.append(event) }
            #expect(log.path == container + "/Library/Analytics/paywall.jsonl")
            #expect(try log.events() == events)
            let text = try String(contentsOfFile: log.path, encoding: .utf8)
            #expect(text == events.map { $0.jsonLine + "\n" }.joined())
            #expect(try Fixture.permissions(of: log.directoryPath) == 0o750)
            #expect(try Fixture.permissions(of: log.path) == 0o640)
        }
    }

    /// Separate descriptors on one file, as separate processes have: each append is one whole line.
    @Test func concurrentAppendsNeverInterleave() throws {
        try withTemporaryDirectory { container in
            let writers = 8, perWriter = 150
            // Lines of ~6 KB, larger than PIPE_BUF and than a page, so a split write would show.
            let failures = ConcurrentFailures()
            DispatchQueue.concurrentPerform(iterations: writers) { writer in
                let log = PaywallAnalyticsLog(container: container)
                let feature = "writer\(writer)-" + String(repeating: Character(UnicodeScalar(UInt8(97 + writer))), count: 6_000)
                for index in 0..<perWriter {
                    do { try log.append(PaywallEvent(.paywallShown, feature: feature, reason: .limitReached, time: Self.time + Double(index))) } catch {
                        failures.record("\(error)")
                    }
                }
            }
            #expect(failures.all.isEmpty, "\(failures.all.prefix(3))")
            let events = try PaywallAnalyticsLog(container: container).events()
            #expect(events.count == writers * perWriter)
            for writer in 0..<writers {
                let mine = events.filter { $0.feature.hasPrefix("writer\(writer)-") }
                #expect(mine.count == perWriter)
                // Each writer's own lines stay in its order.
                #expect(mine.map(\.time) == (0..<perWriter).map { Self.time + Double($0) })
            }
        }
    }

    @Test func refusesASymlinkInPlaceOfTheFile() throws {
        try withTemporaryDirectory { container in
            let log = PaywallAnalyticsLog(container: container)
            try FileManager.default.createDirectory(atPath: log.directoryPath, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: log.path, withDestinationPath: container + "/elsewhere")
            #expect {
                try log.append(PaywallEvent(.paywallShown, feature: "cards", reason: .limitReached, time: Self.time))
            } throws: { error in
                (error as? PaywallAnalyticsError)?.path == log.path
            }
            #expect(!FileManager.default.fileExists(atPath: container + "/elsewhere"))
        }
    }

    @Test func tornLastRecordIsReportedWithItsLineNumber() throws {
        try withTemporaryDirectory { container in
            let log = PaywallAnalyticsLog(container: container)
            let event = PaywallEvent(.paywallShown, feature: "cards", reason: .limitReached, time: Self.time)
            try log.append(event)
            let handle = try #require(FileHandle(forWritingAtPath: log.path))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(#"{"event":"paywallSh"#.utf8))
            try handle.close()
            #expect {
                try log.events()
            } throws: { error in
                (error as? PaywallAnalyticsError)?.description == "\(log.path): line 2: no newline (torn record)"
            }
        }
    }
}

/// Errors collected from concurrent workers.
final class ConcurrentFailures: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [String] = []
    func record(_ message: String) { lock.withLock { messages.append(message) } }
    var all: [String] { lock.withLock { messages } }
}
