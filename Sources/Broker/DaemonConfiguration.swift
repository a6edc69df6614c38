import EntitlementDefaults
import EntitlementModel

/// How to run ``EntitlementDaemon``.
public struct DaemonConfiguration: Sendable {
    /// The container the daemon serves.
    public var layout: ContainerLayout
    /// Path of the catalog JSON (reloaded on SIGHUP).
    public var catalogPath: String
    /// fsync every write (journal, snapshot, state). Off only for benchmarks on tmpfs.
    public var durable: Bool
    /// The device the daemon runs on, written into every snapshot (`device`): ``SnapshotDevice/watch``
    /// for the watch's broker (the side that listens for its companion), whose readers then hold
    /// its snapshot to the catalog's `companionOfflineLimit`; ``SnapshotDevice/phone`` by default.
    public var device: SnapshotDevice = .phone
    /// Where one-line log messages go (the daemon passes stderr).
    public var log: @Sendable (String) -> Void

    /// A configuration; `durable` defaults to on, and ``device`` to a phone.
    public init(layout: ContainerLayout, catalogPath: String, durable: Bool = true, log: @escaping @Sendable (String) -> Void) {
        self.layout = layout
        self.catalogPath = catalogPath
        self.durable = durable
        self.log = log
    }
}
