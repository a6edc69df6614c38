import EntitlementDefaults
import Entitlements
import Foundation
import SharedDefaults
import SystemShims
import TestSupport
import Testing

#if ENABLE_MOCKING
/// A read that fails (a system call's error) judges no file: it is reported as failed, never as a
/// refusal, and the same unchanged file is read again at the next refresh.
@Suite(.timeLimit(.minutes(1))) struct FailedReadTests {
    @Test("EMFILE, ENOMEM or EIO while reading a new snapshot is a failed read; the next refresh reads the same file",
          arguments: [(SyscallFaults.Call.open, Errno.tooManyOpenFiles), (.open, Errno(rawValue: ENOMEM)), (.read, .ioError)])
    func failedReadIsReadAgain(call: SyscallFaults.Call, errno: Errno) throws {
        try withTemporaryDirectory { container in
            let writer = SharedDefaults(suiteName: Fixture.suite, container: container)
            let reader = SnapshotReader(suiteName: Fixture.suite, container: container)
            let one = Fixture.snapshot(generation: 1), two = Fixture.snapshot(generation: 2)
            try writer.publish(one)
            #expect(reader.refresh() == .updated(one))

            try writer.publish(two)
            let faults = SyscallFaults()
            faults.inject(.fail(errno), into: call)
            let outcome = faults.withFaults { reader.refresh() }
            guard case .failed(let reason, errno, one) = outcome else {
                Issue.record("expected a failed read keeping generation 1, got \(outcome)")
                return
            }
            #expect(reason.hasPrefix(reader.path + ":") && !reason.contains("\n"), "\(reason)")
            // Nothing changed on disk; the file is read, not refused unread.
            #expect(reader.refresh() == .updated(two))
        }
    }
}
#endif
