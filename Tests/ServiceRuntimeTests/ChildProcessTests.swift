import Foundation
@testable import ServiceRuntime
import Synchronization
import SystemShims
import Testing

@Suite("ChildProcess", .timeLimit(.minutes(1)))
struct ChildProcessTests {
    @Test("Lines from stdout and stderr arrive as they are written, an unterminated last line too; the exit status is kept")
    func linesAndStatus() async throws {
        let lines = Mutex<[String]>([])
        let child = try ChildProcess(
            executable: "/bin/sh", arguments: ["-c", "echo one; echo two >&2; printf three; exit 4"]
        ) { stream, line in
            lines.withLock { $0.append("\(stream == .standardOutput ? "out" : "err") \(line)") }
        }
        #expect(await child.waitForExit(timeout: .seconds(30)) == 4)
        #expect(child.standardOutput == "one\nthree")
        #expect(child.standardError == "two\n")
        #expect(lines.withLock { $0.sorted() } == ["err two", "out one", "out three"])
    }

    @Test("The child starts in the working directory given, with the environment given and stdin at end of file")
    func workingDirectoryEnvironmentAndInput() async throws {
        let directory = FileManager.default.temporaryDirectory.resolvingSymlinksInPath().path
        let child = try ChildProcess(
            executable: "/bin/sh", arguments: ["-c", #"cat; echo "$ONLY"; pwd -P"#], environment: ["ONLY": "this"],
            workingDirectory: directory)
        #expect(await child.waitForExit(timeout: .seconds(30)) == 0)
        #expect(child.standardOutput == "this\n\(directory)\n")
    }

    @Test("The exit instant is the reaper's: absent while the child runs, then after the exit and before its owner looked")
    func exitInstantIsWhenTheReaperSawTheExit() async throws {
        let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "exec sleep 30"])
        defer { child.send(SIGKILL) }
        #expect(child.exitInstant == nil)
        let signalled = ContinuousClock.now
        child.send(SIGKILL)
        #expect(await child.waitForExit(timeout: .seconds(30)) == 128 + SIGKILL)
        let looked = ContinuousClock.now
        let exit = try #require(child.exitInstant)
        #expect(signalled <= exit && exit <= looked)
    }

    @Test("A process that cannot be waited for (not our child: ECHILD) reports the unknown status, never 0")
    func unobservableEndIsNotSuccess() {
        // Process 1 is never a child of the test process, so waitpid fails as it does for a child
        // someone else reaped.
        #expect(ChildProcess.waitForExit(ProcessID(rawValue: 1)) == ChildProcess.unknownStatus)
        #expect(ChildProcess.unknownStatus != 0)
    }

    @Test("stop() ends a child that runs on with SIGTERM: 128 + 15")
    func stop() async throws {
        let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "exec sleep 60"])
        #expect(child.isRunning)
        #expect(await child.stop(grace: .seconds(30)) == 128 + SignalNumber.terminate.rawValue)
        #expect(!child.isRunning)
    }

    @Test("A program that is not there is refused with ENOENT")
    func missingProgram() {
        #expect(throws: Errno.noSuchFileOrDirectory) { _ = try ChildProcess(executable: "/nonexistent/program", arguments: []) }
    }
}
