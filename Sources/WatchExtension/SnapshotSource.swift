import EntitlementModel

/// Where the watch app gets its replica of the snapshot. The companion-replica issue provides the
/// real one (the watch container's shared file); the app only ever reads through this seam.
///
/// `currentSnapshot()` returns the last good snapshot, or `nil` when none could be read (which
/// fails closed). It must not block for long: it is called on app launch.
public protocol SnapshotSource: Sendable {
    func currentSnapshot() -> EntitlementSnapshot?
}

/// A source that always returns the snapshot it was made with. For tests and previews.
public struct FixedSnapshotSource: SnapshotSource, Hashable {
    public var snapshot: EntitlementSnapshot?

    public init(_ snapshot: EntitlementSnapshot?) { self.snapshot = snapshot }

    public func currentSnapshot() -> EntitlementSnapshot? { snapshot }
}
