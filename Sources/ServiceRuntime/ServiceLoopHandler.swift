import FoundationEssentials

/// What a ``ServiceLoop`` hands its handler, one at a time, on the loop's thread.
public enum ServiceLoopEvent<Source: Sendable>: Sendable {
    /// Always the first event: do the start-up work (the first publish, a first render).
    case start
    /// Something one of the loop's sources posted (a directory changed, a watch failed).
    case source(Source)
    /// The instant the handler's last ``ServiceLoopStep/wait(until:)`` named has come: the wall
    /// clock reached it, or as long passed as it was away (a clock set back does not hold it off).
    case deadline
    /// A signal the loop listens for that is not a stop signal (SIGHUP: reload).
    case signal(UnixSignal)
    /// A stop signal (SIGTERM, SIGINT): the last event. It is delivered as soon as the event in
    /// hand is finished, ahead of anything still queued, and the loop ends whatever the handler
    /// returns.
    case stop(UnixSignal)
}

/// What the handler wants after an event.
public enum ServiceLoopStep: Sendable, Equatable {
    /// Wait for the next event, and deliver ``ServiceLoopEvent/deadline`` at `until` (wall clock;
    /// earlier if the wall clock is set back meanwhile) if nothing else came first; `nil`: no deadline.
    case wait(until: Date?)
    /// End the loop now (the handler has recorded why).
    case stop
}

/// The service a ``ServiceLoop`` runs: one value that owns its state and does all its work,
/// blocking work included (fsync, reading files), in ``handle(_:)`` on the loop's own thread,
/// one event at a time, so an event in hand is always finished before the next is looked at.
public protocol ServiceLoopHandler: SendableMetatype {
    /// What the loop's sources post.
    associatedtype Source: Sendable
    /// Handles one event; returns when to wake it with no event (``ServiceLoopStep/wait(until:)``)
    /// or that the loop ends.
    mutating func handle(_ event: ServiceLoopEvent<Source>) -> ServiceLoopStep
}
