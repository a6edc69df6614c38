import Glibc
import SystemShims
import Testing

@Suite("Pipes and whole writes", .timeLimit(.minutes(1)))
struct PipeTests {
    @Test("What goes into the write end comes out of the read end, then end of file once the write end is closed")
    func bytesCrossThePipe() throws {
        let pipe = try FileDescriptor.pipe()
        try pipe.writeEnd.writeAll(Array("one line\n".utf8))
        try pipe.writeEnd.close()
        #expect(try pipe.readEnd.readAll(limit: 1024) == Array("one line\n".utf8))
    }

    @Test("Both ends are close-on-exec from birth")
    func bothEndsAreCloseOnExec() throws {
        let pipe = try FileDescriptor.pipe()
        #expect(fcntl(pipe.readEnd.rawValue, F_GETFD) & FD_CLOEXEC != 0)
        #expect(fcntl(pipe.writeEnd.rawValue, F_GETFD) & FD_CLOEXEC != 0)
    }

    @Test("writeAll of bytes in memory writes every byte; a write to a pipe nobody reads fails with EPIPE once SIGPIPE is ignored")
    func writeAllFromMemoryAndBrokenPipe() throws {
        SignalNumber.brokenPipe.ignore()
        let text = String(repeating: "0123456789", count: 1000)
        let pipe = try FileDescriptor.pipe()
        let readEnd = pipe.readEnd, writeEnd = pipe.writeEnd
        var copy = text
        try copy.withUTF8 { bytes in
            Result { () throws(Errno) in try writeEnd.writeAll(UnsafeRawBufferPointer(bytes)) }
        }.get()
        try writeEnd.close()
        #expect(try readEnd.readAll(limit: 1 << 20) == Array(text.utf8))

        let unread = try FileDescriptor.pipe()
        let unreadWriteEnd = unread.writeEnd
        try unread.readEnd.close()
        #expect(throws: Errno.brokenPipe) { try unreadWriteEnd.writeAll([1, 2, 3]) }
    }

    #if ENABLE_MOCKING
    @Test("A pipe the kernel refuses (EMFILE) throws that errno")
    func refusedPipeThrowsItsErrno() throws {
        let faults = SyscallFaults()
        faults.inject(.fail(.tooManyOpenFiles), into: .pipe)
        #expect(throws: Errno.tooManyOpenFiles) {
            try faults.withFaults { () throws(Errno) in _ = try FileDescriptor.pipe() }
        }
        #expect(faults.count(of: .pipe) == 1)
    }

    @Test("writeAll of bytes in memory completes through an interrupted write (EINTR) and short writes")
    func writeAllFromMemoryRetriesAndCompletes() throws {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0) }
        let pipe = try FileDescriptor.pipe()
        let readEnd = pipe.readEnd, writeEnd = pipe.writeEnd
        let faults = SyscallFaults()
        faults.inject(.fail(.interrupted), into: .write)
        faults.inject(.shortTransfer(maximumBytes: 7), into: .write, times: nil)
        try faults.withFaults { () throws(Errno) in
            try bytes.withUnsafeBytes { raw in
                Result { () throws(Errno) in try writeEnd.writeAll(raw) }
            }.get()
        }
        #expect(faults.count(of: .write) == 1 + (1000 + 6) / 7)
        try writeEnd.close()
        #expect(try readEnd.readAll(limit: 4096) == bytes)
    }
    #endif
}
