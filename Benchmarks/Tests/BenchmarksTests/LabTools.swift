import Foundation

/// The lab's executables, as built next to the test bundle, run as child processes.
enum LabTools {
    /// The build products directory, from the test binary's own path.
    static let directory: String = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent().path
    }()

    /// The product's root (holds `Shared/` and `Benchmarks/`), from this file's path.
    static let productRoot: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    static var defaultCatalog: String { productRoot + "/Shared/Catalog.json" }

    /// A started child whose standard output and error go to files it can read back.
    final class Child: @unchecked Sendable {
        let process = Process()
        private let output: String, error: String

        init(_ name: String, _ arguments: [String], workingDirectory: String? = nil) throws {
            let base = NSTemporaryDirectory() + "lab-\(UUID().uuidString)"
            (output, error) = (base + ".out", base + ".err")
            FileManager.default.createFile(atPath: output, contents: nil)
            FileManager.default.createFile(atPath: error, contents: nil)
            process.executableURL = URL(fileURLWithPath: LabTools.directory + "/" + name)
            process.arguments = arguments
            if let workingDirectory { process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory) }
            process.standardOutput = FileHandle(forWritingAtPath: output)
            process.standardError = FileHandle(forWritingAtPath: error)
            try process.run()
        }

        deinit {
            if process.isRunning { process.interrupt(); kill(process.processIdentifier, SIGKILL) }
            try? FileManager.default.removeItem(atPath: output)
            try? FileManager.default.removeItem(atPath: error)
        }

        var standardOutput: String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }
        var standardError: String { (try? String(contentsOfFile: error, encoding: .utf8)) ?? "" }
        var isRunning: Bool { process.isRunning }

        func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

        /// The exit status (128 + N for a death by signal N), or nil if it still runs after `timeout`.
        func waitForExit(timeout: Duration) async -> Int32? {
            guard await waitUntil(timeout: timeout, { !self.process.isRunning }) else { return nil }
            return process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        }
    }

    /// Runs `name` to completion (killed after `timeout`); returns its status and output.
    static func run(_ name: String, _ arguments: [String], timeout: Duration = .seconds(30)) async throws -> (status: Int32?, output: String, error: String) {
        let child = try Child(name, arguments)
        let status = await child.waitForExit(timeout: timeout)
        if status == nil { child.send(SIGKILL) }
        return (status, child.standardOutput, child.standardError)
    }
}

/// Polls `condition` every 2 ms until it holds or `timeout` passes, and says which: a wait for a
/// state with a deadline, not a sleep used as synchronisation.
func waitUntil(timeout: Duration, _ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while !condition() {
        if clock.now >= deadline { return false }
        try? await clock.sleep(for: .milliseconds(2))
    }
    return true
}
