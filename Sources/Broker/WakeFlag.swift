import Synchronization

/// A wake-up that is already queued: raised by the producer of wake-ups, lowered by the consumer
/// right before it acts, so any number of events between two actions queue one wake-up.
final class WakeFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    /// Raises the flag; returns `true` if it was down (the caller should queue a wake-up).
    func raise() -> Bool {
        !raised.exchange(true, ordering: .acquiringAndReleasing)
    }

    /// Lowers the flag before acting on the queued wake-up.
    func lower() {
        raised.store(false, ordering: .releasing)
    }
}
