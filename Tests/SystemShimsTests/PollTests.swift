import Glibc
import SystemShims
import Testing

/// A wait on descriptors outlives a moment when the process may hold fewer descriptors than it
/// polls (`poll` answers `EINVAL`), as a follower must while its limit is briefly too low.
@Suite("Polling through a descriptor shortage", .timeLimit(.minutes(1)))
struct PollTests {
    #if ENABLE_MOCKING
    @Test("EINVAL from poll (fewer descriptors allowed than polled) is waited out, not thrown")
    func shortageIsWaitedOut() throws {
        let pipe = try FileDescriptor.pipe()
        try pipe.writeEnd.writeAll([1])
        let faults = SyscallFaults()
        faults.inject(.fail(.invalidArgument), into: .poll, times: 2)
        let ready = try faults.withFaults { () throws(Errno) in
            try FileDescriptor.waitForInput(pipe.readEnd.rawValue, nil, timeoutMilliseconds: -1)
        }
        #expect(ready.first)
        #expect(faults.count(of: .poll) == 3)
    }

    @Test("A shortage that outlasts the timeout ends the wait at the timeout with nothing ready")
    func shortageCountsAgainstTheTimeout() throws {
        let pipe = try FileDescriptor.pipe()
        let faults = SyscallFaults()
        faults.inject(.fail(.invalidArgument), into: .poll, times: nil)
        let ready = try faults.withFaults { () throws(Errno) in
            try FileDescriptor.waitForInput(pipe.readEnd.rawValue, nil, timeoutMilliseconds: 250)
        }
        #expect(!ready.first && !ready.second)
        #expect(faults.count(of: .poll) == 3)
    }
    #endif
}
