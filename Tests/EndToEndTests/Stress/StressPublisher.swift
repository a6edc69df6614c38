import EntitlementDefaults
import Entitlements
import Foundation
import SharedDefaults

/// Publishes generations of a two-entitlement snapshot through SharedDefaults in a tight loop,
/// alternately unlocked and locked, so a torn read that mixed two generations could not pass for either.
enum StressPublisher {
    /// Publishes `generations` on a thread of its own (seconds of blocking writes stay off the
    /// concurrency pool the other tests wait on).
    static func publish(_ generations: ClosedRange<Int64>, container: String, group: String, durable: Bool) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread.detachNewThread {
                continuation.resume(with: Result { try publishHere(generations, container: container, group: group, durable: durable) })
            }
        }
    }

    private static func publishHere(_ generations: ClosedRange<Int64>, container: String, group: String, durable: Bool) throws {
        let store = SharedDefaults(suiteName: group, container: container, options: .init(durable: durable))
        let start = Date()
        for generation in generations {
            let status = EntitlementStatus(
                active: generation % 2 == 0, state: generation % 2 == 0 ? .subscribed : .expired,
                expiresAt: start.addingTimeInterval(3600), productId: "stress.\(generation)")
            try store.publish(
                EntitlementSnapshot(
                    generation: generation, issuedAt: start.addingTimeInterval(Double(generation) / 1000),
                    nextTransition: nil, entitlements: ["plus": status, "pad": status]))
        }
    }
}
