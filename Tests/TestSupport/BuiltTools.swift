import Foundation
import ServiceRuntime

/// The package's executables, as built next to the test bundle, run as real child processes.
public enum BuiltTools {
    /// The build products directory (`.build/<triple>/debug`), from the test binary's own path.
    public static let directory: String = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent().path
    }()

    /// The package root (holds Package.swift and Shared/), from this file's path.
    public static let packageRoot: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// The default catalog shipped in Shared/.
    public static var defaultCatalog: String { packageRoot + "/Shared/Catalog.json" }

    /// Path of the executable `name` (e.g. `entitlementd`).
    public static func path(_ name: String) -> String { directory + "/" + name }

    /// An environment for children: the parent's, less XCTest's and our own ENTITLEMENTS_* variables,
    /// with COLUMNS unset so text output does not depend on the terminal.
    public static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter {
            !$0.key.hasPrefix("XCTest") && !$0.key.hasPrefix("ENTITLEMENTS_") && $0.key != "COLUMNS"
        }
        environment["LANG"] = "C.UTF-8"
        environment.merge(extra) { $1 }
        return environment
    }

    public struct Result: Sendable {
        public var status: Int32
        public var standardOutput: String
        public var standardError: String
    }

    /// Runs `name` with `arguments` to completion (killed after `timeout`), optionally feeding
    /// `input` on stdin and starting in `workingDirectory`; both pipes are drained while it runs.
    public static func run(
        _ name: String, _ arguments: [String], input: String? = nil, environment: [String: String] = [:],
        workingDirectory: String? = nil, timeout: Duration = .seconds(30)
    ) async throws -> Result {
        try await run(
            executable: path(name), arguments, input: input, environment: environment, workingDirectory: workingDirectory,
            timeout: timeout)
    }

    /// ``run(_:_:input:environment:workingDirectory:timeout:)`` for a program outside the package
    /// (a reference tool such as `sha256sum` or `python3`), given by its absolute path.
    public static func run(
        executable: String, _ arguments: [String], input: String? = nil, environment: [String: String] = [:],
        workingDirectory: String? = nil, timeout: Duration = .seconds(30)
    ) async throws -> Result {
        var stdin: FileHandle?
        var inputFile: String?
        if let input {
            let path = NSTemporaryDirectory() + "/stdin-\(UUID().uuidString)"
            try Data(input.utf8).write(to: URL(fileURLWithPath: path))
            stdin = FileHandle(forReadingAtPath: path)
            inputFile = path
        }
        defer {
            try? stdin?.close()
            if let inputFile { try? FileManager.default.removeItem(atPath: inputFile) }
        }
        let child = try ChildProcess(
            executable: executable, arguments: arguments, environment: self.environment(environment),
            standardInput: stdin?.fileDescriptor, workingDirectory: workingDirectory)
        guard let status = await child.waitForExit(timeout: timeout) else {
            await child.stop(grace: .seconds(1))
            throw ToolTimeout(command: ([executable] + arguments).joined(separator: " "), output: child.standardOutput + child.standardError)
        }
        return Result(status: status, standardOutput: child.standardOutput, standardError: child.standardError)
    }

    /// `command` (a program found on `PATH`, then its arguments) under `nice -n 10`, as an
    /// executable and arguments to start: for heavy work whose timing no test measures (a compiler,
    /// docc, the crash-torture harness and its spinning readers), so that on a machine of few cores
    /// the suite's timing-sensitive processes are scheduled first.
    public static func lowPriority(_ command: [String]) -> (executable: String, arguments: [String]) {
        ("/usr/bin/nice", ["-n", "10"] + command)
    }

    /// Starts `name` in the background; the caller must `stop()` it (a `defer` is the usual place).
    public static func start(
        _ name: String, _ arguments: [String], environment: [String: String] = [:], workingDirectory: String? = nil
    ) throws -> ChildProcess {
        try ChildProcess(
            executable: path(name), arguments: arguments, environment: self.environment(environment), workingDirectory: workingDirectory)
    }
}

extension ChildProcess {
    /// Whether an `entitlementd` child has logged its start: it then handles SIGTERM and SIGINT
    /// (it listens for them before it starts), so a stop from here on is a clean one. A shared
    /// file on disk says nothing of this when a daemon restarts over one it published before.
    public var daemonHasStarted: Bool { standardError.contains("entitlementd: started: ") }
}

/// A tool run that did not finish in time.
public struct ToolTimeout: Error, CustomStringConvertible {
    public var command: String
    public var output: String
    public var description: String { "'\(command)' did not finish in time; output so far:\n\(output)" }
}
