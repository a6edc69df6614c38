import Glibc
import SystemShims
import TestSupport
import Testing

@Suite("Child processes: spawn, signal, wait", .timeLimit(.minutes(1)))
struct ProcessTests {
    /// Runs `script` with `/bin/sh`, its standard output and error into one pipe; returns how it
    /// ended and what it wrote.
    private static func run(
        _ script: String, environment: [String: String]? = nil, standardInput: CInt? = nil, workingDirectory: String? = nil
    ) throws -> (status: TerminationStatus, output: String) {
        let pipe = try FileDescriptor.pipe()
        let child = try ProcessID.spawn(
            "/bin/sh", arguments: ["-c", script], environment: environment, standardInput: standardInput,
            standardOutput: pipe.writeEnd, standardError: pipe.writeEnd, workingDirectory: workingDirectory)
        try pipe.writeEnd.close()
        let output = try pipe.readEnd.readAll(limit: 1 << 20)
        return (try child.waitForTermination(), String(decoding: output, as: UTF8.self))
    }

    @Test("A child's exit code, and what it writes to stdout and stderr")
    func exitCodeAndOutput() throws {
        let (status, output) = try Self.run("echo out; echo err >&2; exit 3")
        #expect(status == .exited(3))
        #expect(status.shellStatus == 3)
        #expect(output == "out\nerr\n")
    }

    @Test("A child killed by a signal reports it, as 128 + its number in shell terms")
    func killedBySignal() throws {
        let (status, _) = try Self.run("kill -TERM $$")
        #expect(status == .signalled(.terminate))
        #expect(status.shellStatus == 128 + SIGTERM)
        #expect(status.description == "killed by SIGTERM")
    }

    @Test("The environment given replaces the parent's, and the child starts in the working directory given")
    func environmentAndWorkingDirectory() throws {
        try withTemporaryDirectory { directory in
            let (status, output) = try Self.run(#"echo "$GREETING/$HOME"; pwd -P"#, environment: ["GREETING": "hello"], workingDirectory: directory)
            let resolved = realpath(directory, nil).map { pointer in
                defer { free(pointer) }
                return String(cString: pointer)
            }
            #expect(status == .exited(0))
            #expect(output == "hello/\n\(resolved ?? directory)\n")
        }
    }

    @Test("Standard input is /dev/null unless a descriptor is given, which the child reads")
    func standardInput() throws {
        #expect(try Self.run("cat; echo end").output == "end\n")
        let input = try FileDescriptor.pipe()
        try input.writeEnd.writeAll(Array("from the parent\n".utf8))
        try input.writeEnd.close()
        #expect(try Self.run("cat", standardInput: input.readEnd.rawValue).output == "from the parent\n")
    }

    @Test("A program that is not there is refused with ENOENT")
    func missingProgram() throws {
        let pipe = try FileDescriptor.pipe()
        #expect(throws: Errno.noSuchFileOrDirectory) {
            _ = try ProcessID.spawn("/nonexistent/program", arguments: [], standardOutput: pipe.writeEnd, standardError: pipe.writeEnd)
        }
    }

    @Test("A signal sent to a running child ends it; a reaped child cannot be waited for again (ECHILD)")
    func sendAndReap() throws {
        let pipe = try FileDescriptor.pipe()
        let child = try ProcessID.spawn("/bin/sh", arguments: ["-c", "exec sleep 60"], standardOutput: pipe.writeEnd, standardError: pipe.writeEnd)
        try child.send(.terminate)
        #expect(try child.waitForTermination() == .signalled(.terminate))
        #expect(throws: Errno.noChildProcess) { _ = try child.waitForTermination() }
    }

    @Test("A raw wait status decodes as exit code or signal")
    func waitStatusDecoding() {
        #expect(TerminationStatus(waitStatus: 0) == .exited(0))
        #expect(TerminationStatus(waitStatus: 0x4100) == .exited(0x41))
        #expect(TerminationStatus(waitStatus: SIGKILL) == .signalled(.kill))
        #expect(TerminationStatus(waitStatus: SIGKILL | 0x80) == .signalled(.kill), "the core-dump bit is not part of the signal")
        #expect(TerminationStatus.exited(2).description == "exited with status 2")
    }

    @Test("Signal names")
    func signalNames() {
        #expect(SignalNumber.terminate.description == "SIGTERM")
        #expect(SignalNumber.hangup.description == "SIGHUP")
        #expect(SignalNumber(rawValue: SIGUSR1).description == "signal \(SIGUSR1)")
        #expect(ProcessID.current.rawValue == getpid())
    }

    #if ENABLE_MOCKING
    @Test("An interrupted wait (EINTR) is retried and still reports the end; without retry it throws EINTR")
    func interruptedWait() throws {
        let pipe = try FileDescriptor.pipe()
        let child = try ProcessID.spawn("/bin/sh", arguments: ["-c", "exit 7"], standardOutput: pipe.writeEnd, standardError: pipe.writeEnd)
        let faults = SyscallFaults()
        faults.inject(.fail(.interrupted), into: .waitpid, times: 2)
        #expect(throws: Errno.interrupted) {
            try faults.withFaults { () throws(Errno) in _ = try child.waitForTermination(retryOnInterrupt: false) }
        }
        #expect(try faults.withFaults { () throws(Errno) in try child.waitForTermination() } == .exited(7))
        #expect(faults.count(of: .waitpid) == 3)
    }
    #endif
}

@Suite("Ending the process", .timeLimit(.minutes(1)))
struct ProcessExitTests {
    @Test("ProcessExit.normally ends the process with the status given, flushing what C stdio buffered")
    func exitsNormallyWithTheStatus() async {
        let result = await #expect(processExitsWith: .exitCode(3), observing: [\.standardOutputContent]) {
            print("buffered", terminator: "")  // C stdio, fully buffered into a pipe
            ProcessExit.normally(status: 3)
        }
        #expect(String(decoding: result?.standardOutputContent ?? [], as: UTF8.self) == "buffered")
    }
}
