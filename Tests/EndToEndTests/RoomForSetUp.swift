import Foundation
import Testing

/// Runs `attempt` with each window in turn until one is long enough for this machine: an attempt
/// returns false, having checked nothing, when its set-up outlasted the window it was given.
/// On a loaded machine the set-up (an ingest, a daemon's stop) can take seconds; the test then
/// tries again with more room instead of failing or judging a race it did not set up.
func withRoomForSetUp(_ windows: [TimeInterval], _ attempt: (TimeInterval) async throws -> Bool) async throws {
    for window in windows where try await attempt(window) { return }
    Issue.record("even a window of \(windows.last ?? 0) s was too short for the set-up on this machine")
}
