import FileWatch
import Foundation
import Glibc
import Synchronization
import Testing

@Suite(.serialized, .timeLimit(.minutes(1)))
struct DirectoryWatchTests {
    @Test func reportsCreateReplaceAndDeleteOfWatchedNamesOnly() async throws {
        try await withTemporaryDirectory { directory in
            try await withRecordedWatch(directory: directory, names: ["state.plist"]) { log in
                #expect(await log.wait { !$0.isEmpty })
                #expect(log.events.first == .armed, "got: \(log.events)")

                let beforeCreate = log.events.count
                try writeFile(directory + "/state.plist", "1")
                #expect(await log.wait { $0.reports("state.plist", from: beforeCreate) }, "created: got \(log.events)")

                let beforeReplace = log.events.count
                try replaceAtomically(directory: directory, name: "state.plist", contents: "2")
                #expect(await log.wait { $0.reports("state.plist", from: beforeReplace) }, "replaced: got \(log.events)")

                // Names outside the filter: written first, then a watched name as a marker. Kernel events
                // arrive in order, so once the marker is seen the others have been processed.
                let beforeOther = log.events.count
                try writeFile(directory + "/other", "x")
                try writeFile(directory + "/state.plist", "3")
                #expect(await log.wait { $0.reports("state.plist", from: beforeOther) })

                let beforeDelete = log.events.count
                #expect(unlink(directory + "/state.plist") == 0)
                #expect(await log.wait { $0.reports("state.plist", from: beforeDelete) }, "deleted: got \(log.events)")

                let reported = log.events.reduce(into: Set<String>()) { $0.formUnion($1.changedNames) }
                #expect(reported == ["state.plist"], "the temporary and other names must be filtered out")
            }
        }
    }

    @Test func reportsEveryNameWithoutFilter() async throws {
        try await withTemporaryDirectory { directory in
            try await withRecordedWatch(directory: directory, names: nil) { log in
                #expect(await log.wait { $0.first == .armed })
                try replaceAtomically(directory: directory, name: "a", contents: "1")
                #expect(await log.wait { $0.reports("a") && $0.reports(".a.tmp") }, "got: \(log.events)")
            }
        }
    }

    @Test func reportsOnlyTheNamesThePredicateAccepts() async throws {
        try await withTemporaryDirectory { directory in
            try await withRecordedWatch(directory: directory, names: nil, reporting: { $0.hasSuffix(".events") && $0.first != "." }) { log in
                #expect(await log.wait { $0.first == .armed })
                #expect(DirectoryWatch(directory: directory, reporting: { _ in true }).names == nil)
                // Refused names first, then an accepted one as a marker: kernel events arrive in
                // order, so once the marker is seen the others have been filtered.
                try writeFile(directory + "/other", "x")
                try replaceAtomically(directory: directory, name: "1.events", contents: "1")
                #expect(await log.wait { $0.reports("1.events") }, "got: \(log.events)")
                let reported = log.events.reduce(into: Set<String>()) { $0.formUnion($1.changedNames) }
                #expect(reported == ["1.events"], "the temporary file and the other name wake nothing")
            }
        }
    }

    @Test func arrivalsOnlyReportsNamesThatArriveButNotThoseThatLeave() async throws {
        try await withTemporaryDirectory { directory in
            try await withRecordedWatch(directory: directory, names: nil, reporting: { $0.first != "." }, arrivalsOnly: true) { log in
                #expect(await log.wait { $0.first == .armed })
                try replaceAtomically(directory: directory, name: "1.events", contents: "1")
                try writeFile(directory + "/2.events", "2")
                try replaceAtomically(directory: directory, name: "m.events", contents: "m")
                #expect(await log.wait { $0.reports("m.events") }, "got: \(log.events)")
                #expect(log.events.contains { $0.changedNames.contains("1.events") } && log.events.contains { $0.changedNames.contains("2.events") })
                // Removals, then an arrival as a marker: kernel events arrive in order.
                let mark = log.events.count
                #expect(unlink(directory + "/1.events") == 0)
                #expect(rename(directory + "/2.events", directory + "/moved") == 0)
                try writeFile(directory + "/3.events", "3")
                #expect(await log.wait { $0.reports("3.events", from: mark) }, "got: \(log.events)")
                let reported = log.events[mark...].reduce(into: Set<String>()) { $0.formUnion($1.changedNames) }
                #expect(reported == ["moved", "3.events"], "the deletion and the move's source wake nothing")
            }
        }
    }

    @Test func burstOfReplacesCoalescesAndEndsOnTheLastState() async throws {
        try await withTemporaryDirectory { directory in
            let gate = Gate()
            let replaces = 1_000
            try await withRecordedWatch(directory: directory, names: ["state"], holdAfterFirstEvent: gate) { log in
                #expect(await log.wait { $0.first == .armed })
                // The consumer is busy (held) during the burst, as a slow widget would be.
                for generation in 1...replaces {
                    try replaceAtomically(directory: directory, name: "state", contents: "\(generation)")
                }
                gate.open()
                #expect(await log.wait { $0.reports("state") })
                let changes = log.events.filter { !$0.changedNames.isEmpty }
                #expect(changes.count < replaces / 10, "expected coalescing, got \(changes.count) events")
                let last = try String(contentsOfFile: directory + "/state", encoding: .utf8)
                #expect(last == "\(replaces)")
            }
        }
    }

    @Test func kernelQueueOverflowIsReportedAndTheWatchGoesOn() async throws {
        let queueLimit = try inotifyQueueLimit()
        try await withTemporaryDirectory { directory in
            let gate = Gate()
            try await withRecordedWatch(directory: directory, names: ["x"], holdAfterFirstEvent: gate) { log in
                #expect(await log.wait { $0.first == .armed })
                // A pending change makes the reader leave new events in the kernel queue until it is taken.
                try writeFile(directory + "/x", "1")
                try overflowKernelQueue(in: directory, queueLimit: queueLimit)
                gate.open()
                #expect(await log.wait { $0.contains(.overflow) }, "got: \(log.events)")

                let mark = log.events.count
                try writeFile(directory + "/x", "2")
                #expect(await log.wait { $0.reports("x", from: mark) }, "after overflow: got \(log.events)")
            }
        }
    }

    @Test func removedDirectoryIsReportedAndRearmedWhenRecreated() async throws {
        try await withTemporaryDirectory { root in
            let directory = root + "/Preferences"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
            try writeFile(directory + "/group.plist", "1")
            try await withRecordedWatch(directory: directory, names: ["group.plist"]) { log in
                #expect(await log.wait { $0.first == .armed })

                try FileManager.default.removeItem(atPath: directory)
                #expect(await log.wait { $0.contains(.directoryRemoved) }, "got: \(log.events)")
                #expect(await eventually { ProcessResources.isWatched(root) }, "falls back to the parent")

                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
                #expect(await log.wait { $0.contains(.rearmed) }, "got: \(log.events)")
                let removedAt = try #require(log.events.firstIndex(of: .directoryRemoved))
                let rearmedAt = try #require(log.events.firstIndex(of: .rearmed))
                #expect(removedAt < rearmedAt)

                let mark = log.events.count
                try replaceAtomically(directory: directory, name: "group.plist", contents: "2")
                #expect(await log.wait { $0.reports("group.plist", from: mark) }, "got: \(log.events)")
            }
        }
    }

    @Test func movedAwayDirectoryIsReportedAndRearmed() async throws {
        try await withTemporaryDirectory { root in
            let directory = root + "/watched"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
            try await withRecordedWatch(directory: directory, names: nil) { log in
                #expect(await log.wait { $0.first == .armed })
                #expect(rename(directory, root + "/elsewhere") == 0)
                #expect(await log.wait { $0.contains(.directoryRemoved) }, "got: \(log.events)")
                // Changes in the moved directory are no longer ours.
                try writeFile(root + "/elsewhere/stray", "x")
                #expect(rename(root + "/elsewhere", directory) == 0)
                #expect(await log.wait { $0.contains(.rearmed) }, "got: \(log.events)")
                let mark = log.events.count
                try writeFile(directory + "/back", "x")
                #expect(await log.wait { $0.reports("back", from: mark) })
                #expect(!log.events.reports("stray"), "got: \(log.events)")
            }
        }
    }

    @Test func missingDirectoryAndParentsAreAwaitedThenArmed() async throws {
        try await withTemporaryDirectory { root in
            let directory = root + "/Library/Preferences"
            try await withRecordedWatch(directory: directory, names: ["group.plist"]) { log in
                #expect(await eventually { ProcessResources.isWatched(root) }, "watches the nearest ancestor")
                try FileManager.default.createDirectory(atPath: root + "/Library", withIntermediateDirectories: false)
                #expect(await eventually { ProcessResources.isWatched(root + "/Library") }, "descends")
                #expect(log.events.isEmpty, "nothing before the directory exists: \(log.events)")
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
                #expect(await log.wait { $0.first == .armed }, "got: \(log.events)")

                let mark = log.events.count
                try replaceAtomically(directory: directory, name: "group.plist", contents: "1")
                #expect(await log.wait { $0.reports("group.plist", from: mark) }, "got: \(log.events)")
            }
        }
    }

    @Test func wholeMissingTreeCreatedAtOnceIsArmed() async throws {
        try await withTemporaryDirectory { root in
            let directory = root + "/a/b/c/d"
            try await withRecordedWatch(directory: directory, names: nil) { log in
                #expect(await eventually { ProcessResources.isWatched(root) })
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                #expect(await log.wait { $0.first == .armed }, "got: \(log.events)")
                try writeFile(directory + "/f", "1")
                #expect(await log.wait { $0.reports("f") }, "got: \(log.events)")
            }
        }
    }

    @Test func cancellingTheConsumerEndsPromptlyAndReleasesEverything() async throws {
        try await withTemporaryDirectory { directory in
            let descriptorsBefore = ProcessResources.openDescriptorCount
            let threadsBefore = ProcessResources.threadCount
            for round in 0..<50 {
                let log = EventLog()
                let finished = Gate()
                let consumer = Task {
                    defer { finished.open() }
                    for try await event in DirectoryWatch(directory: directory, names: nil) { log.append(event) }
                }
                #expect(await log.wait { $0.first == .armed }, "round \(round)")
                let clock = ContinuousClock()
                let cancelledAt = clock.now
                consumer.cancel()
                let finishedInTime = await finished.wait(timeout: .seconds(1))
                try #require(finishedInTime, "round \(round): still running \(clock.now - cancelledAt) after cancel")
            }
            // A leak would be 100 descriptors and 50 threads; other suites may run in parallel.
            let noise = 10
            #expect(await eventually { ProcessResources.openDescriptorCount <= descriptorsBefore + noise },
                    "descriptors: \(descriptorsBefore) before, \(ProcessResources.openDescriptorCount) after")
            #expect(await eventually { ProcessResources.threadCount <= threadsBefore + noise },
                    "threads: \(threadsBefore) before, \(ProcessResources.threadCount) after")
        }
    }

    @Test func droppingTheIteratorStopsTheReader() async throws {
        try await withTemporaryDirectory { directory in
            let descriptorsBefore = ProcessResources.openDescriptorCount
            do {
                var iterator = DirectoryWatch(directory: directory, names: nil).makeAsyncIterator()
                let first = try await iterator.next()
                #expect(first == .armed)
                #expect(ProcessResources.openDescriptorCount >= descriptorsBefore + 2, "inotify and eventfd open")
            }
            #expect(await eventually { ProcessResources.openDescriptorCount <= descriptorsBefore })
        }
    }

    @Test func nothingStartsBeforeIteration() async throws {
        try await withTemporaryDirectory { directory in
            let descriptorsBefore = ProcessResources.openDescriptorCount
            let watch = DirectoryWatch(directory: directory, names: nil)
            let iterator = watch.makeAsyncIterator()
            #expect(ProcessResources.openDescriptorCount == descriptorsBefore)
            #expect(!ProcessResources.isWatched(directory))
            _ = iterator
        }
    }

    @Test func aRegularFileAtThePathIsWaitedOutUntilADirectoryReplacesIt() async throws {
        try await withTemporaryDirectory { root in
            let directory = root + "/dir"
            try writeFile(directory, "not a directory")
            try await withRecordedWatch(directory: directory, names: nil) { log in
                #expect(await eventually { ProcessResources.isWatched(root) })
                #expect(unlink(directory) == 0)
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
                #expect(await log.wait { $0.first == .armed }, "got: \(log.events)")
            }
        }
    }

    @Test func settleMergesABurstIntoOneDelayedEvent() async throws {
        try await withTemporaryDirectory { directory in
            let settle = Duration.milliseconds(300)
            try await withRecordedWatch(directory: directory, names: nil, settle: settle) { log in
                #expect(await log.wait { $0.first == .armed }, "armed is not delayed")
                let clock = ContinuousClock()
                let start = clock.now
                try writeFile(directory + "/a", "1")
                try writeFile(directory + "/b", "1")
                #expect(await log.wait { $0.reports("a") && $0.reports("b") }, "got: \(log.events)")
                let elapsed = clock.now - start
                #expect(elapsed >= settle * 0.9, "delivered after \(elapsed)")
                #expect(log.events == [.armed, .changed(["a", "b"])])
            }
        }
    }

    @Test func systemErrorsEndTheSequenceByThrowing() async throws {
        try await withTemporaryDirectory { root in
            let directory = root + "/loop"
            #expect(symlink(directory, directory) == 0)
            let descriptorsBefore = ProcessResources.openDescriptorCount
            var iterator = DirectoryWatch(directory: directory, names: nil).makeAsyncIterator()
            let error = await #expect(throws: FileWatchError.self) { _ = try await iterator.next() }
            #expect(error?.errno.rawValue == ELOOP)
            #expect(error?.operation == .addWatch)
            #expect(error?.path == directory)
            #expect(ProcessResources.openDescriptorCount == descriptorsBefore, "closed before throwing")
            let afterError = try await iterator.next()
            #expect(afterError == nil, "the sequence has ended")
        }
    }
}
