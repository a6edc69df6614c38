/// How to run ``EntitlementDaemon``.
public struct DaemonConfiguration: Sendable {
    /// The container the daemon serves.
    public var layout: ContainerLayout
    /// Path of the catalog JSON (reloaded on SIGHUP).
    public var catalogPath: String
    /// fsync every write (journal, snapshot, state). Off only for benchmarks on tmpfs.
    public var durable: Bool
    /// A second container (the watch's) that receives every new snapshot while the link is up.
    public var watchContainer: String?
    /// The companion link, if this daemon keeps one (`--companion-listen` / `--companion-connect`).
    public var companion: CompanionConfiguration?
    /// Where one-line log messages go (the daemon passes stderr).
    public var log: @Sendable (String) -> Void

    /// A configuration; `durable` defaults to on and no watch container.
    public init(
        layout: ContainerLayout, catalogPath: String, durable: Bool = true, watchContainer: String? = nil,
        companion: CompanionConfiguration? = nil, log: @escaping @Sendable (String) -> Void
    ) {
        self.companion = companion
        self.layout = layout
        self.catalogPath = catalogPath
        self.durable = durable
        self.watchContainer = watchContainer
        self.log = log
    }
}
