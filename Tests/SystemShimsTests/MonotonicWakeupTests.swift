import SystemShims
import Testing

/// The service loop's wake-up: a semaphore whose timed wait runs on the monotonic clock.
@Suite("Monotonic wake-up", .timeLimit(.minutes(1)))
struct MonotonicWakeupTests {
    @Test("Each signal lets exactly one wait through; with none pending a wait times out")
    func countsSignals() {
        let wakeup = MonotonicWakeup()
        #expect(!wakeup.wait(timeoutSeconds: 0))
        wakeup.signal()
        wakeup.signal()
        #expect(wakeup.wait(timeoutSeconds: 0))
        #expect(wakeup.wait(timeoutSeconds: nil))
        #expect(!wakeup.wait(timeoutSeconds: 0.01))
    }

    @Test("A signal from another thread ends a wait without limit")
    func signalFromAnotherThread() throws {
        let wakeup = MonotonicWakeup()
        try DetachedThread.start { wakeup.signal() }
        #expect(wakeup.wait(timeoutSeconds: nil))
    }
}
