import Dispatch
import Entitlements
import StoreKitFormats
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
            // The daemon's group's directory: set-group-ID, group-writable, as are the files.
            #expect(try Fixture.permissions(of: log.directoryPath) == 0o2770)
            #expect(try Fixture.permissions(of: log.path) == 0o660)
        }
    }

    /// Separate descriptors on one file, as separate processes have: each append is one whole line.
    @Test func concurrentAppendsNeverInterleave() throws {
        try withTemporaryDirectory { container in
            let writers = 8, perWriter = 150
            // Lines of ~6 KB, larger than PIPE_BUF and than a page, so a split write would show.
            let failures = ConcurrentFailures()
            DispatchQueue.concurrentPerform(iterations: writers) { writer in
                // Large enough not to rotate: every record must be there to be counted.
                let log = PaywallAnalyticsLog(container: container, maximumFileSize: 64 << 20)
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

    @Test func damagedAndTornLinesAreSkippedAndCounted() throws {
        try withTemporaryDirectory { container in
            let log = PaywallAnalyticsLog(container: container)
            let event = PaywallEvent(.paywallShown, feature: "cards", reason: .limitReached, time: Self.time)
            try log.append(event)
            let handle = try #require(FileHandle(forWritingAtPath: log.path))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data("\u{FF}garbage\n{\"event\":\"paywallShown\"}\n".utf8))
            try handle.close()
            try log.append(event)
            let torn = try #require(FileHandle(forWritingAtPath: log.path))
            try torn.seekToEnd()
            try torn.write(contentsOf: Data(#"{"event":"paywallSh"#.utf8))
            try torn.close()
            let records = try log.read()
            #expect(records.events == [event, event])
            #expect(records.damagedLines == 3)
        }
    }

    @Test func rotationKeepsTheLogBoundedAndTheNewestRecords() throws {
        try withTemporaryDirectory { container in
            let log = PaywallAnalyticsLog(container: container, maximumFileSize: 1_000)
            let events = (0..<100).map { PaywallEvent(.paywallShown, feature: "cards", reason: .limitReached, time: Self.time + Double($0)) }
            for event in events { try log.append(event) }
            let current = try FileManager.default.attributesOfItem(atPath: log.path)[.size] as? Int ?? .max
            let rotated = try FileManager.default.attributesOfItem(atPath: log.rotatedPath)[.size] as? Int ?? .max
            let line = events[0].jsonLine.utf8.count + 1
            #expect(current < 1_000 + line && rotated < 1_000 + line)
            let kept = try log.events()
            #expect(kept == Array(events.suffix(kept.count)))
            #expect(kept.count >= 1_000 / line)
        }
    }

    @Test func cooldownDecidesOnceUnderTheLock() throws {
        try withTemporaryDirectory { container in
            let log = PaywallAnalyticsLog(container: container)
            let cooldown = ISO8601Duration(minutes: 5)
            let shown = PaywallEvent(.paywallShown, feature: "cards", reason: .limitReached, time: Self.time)
            var again = shown
            again.time = Self.time + 299
            let answers = [
                try log.recordShown(shown, cooldown: cooldown), try log.recordShown(again, cooldown: cooldown),
                try log.recordShown(PaywallEvent(.paywallShown, feature: "cards", reason: .limitReached, time: Self.time + 300), cooldown: cooldown),
                try log.recordShown(again, cooldown: nil),
            ]
            #expect(answers == [true, false, true, true])
            #expect(try log.events().count == 3)
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
