import EntitlementDefaults
import Entitlements

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
    /// The companion link, if this daemon keeps one (`--companion-listen` / `--companion-connect`).
    public var companion: CompanionConfiguration?
    /// Where one-line log messages go (the daemon passes stderr).
    public var log: @Sendable (String) -> Void

    /// A configuration; `durable` defaults to on, no companion link, and ``device`` to the watch
    /// for a daemon that listens for its companion, a phone otherwise.
    public init(
        layout: ContainerLayout, catalogPath: String, durable: Bool = true, companion: CompanionConfiguration? = nil,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.companion = companion
        if case .listen? = companion?.endpoint { device = .watch }
        self.layout = layout
        self.catalogPath = catalogPath
        self.durable = durable
        self.log = log
    }
}
