import Entitlements

/// Where the watch app gets its snapshot: in a real app, a `SnapshotReader` on the shared file
/// the watch's own broker publishes in the watch's container; the app only ever reads through
/// this seam.
///
/// `currentSnapshot()` returns the last good snapshot, or `nil` when none could be read (which
/// fails closed). It must not block for long: it is called on app launch.
public protocol SnapshotSource: Sendable {
    /// The last good snapshot, or `nil` when none could be read.
    func currentSnapshot() -> EntitlementSnapshot?
}

/// A source that always returns the snapshot it was made with. For tests and previews.
public struct FixedSnapshotSource: SnapshotSource, Hashable {
    /// What ``currentSnapshot()`` returns.
    public var snapshot: EntitlementSnapshot?

    /// A source that always returns `snapshot`.
    public init(_ snapshot: EntitlementSnapshot?) { self.snapshot = snapshot }

    /// The snapshot the source was made with.
    public func currentSnapshot() -> EntitlementSnapshot? { snapshot }
}
