/// Where everything lives inside an app-group container.
///
/// ```
/// <container>/Library/Preferences/<group>.plist        the shared defaults suite (readers watch this directory)
/// <container>/Library/Preferences/.<group>.plist.lock  its read-modify-write lock
/// <container>/Library/Broker/entitlementd.lock         held by the one running daemon
/// <container>/Library/Broker/inbox/                    queued events, one atomically written file each
/// <container>/Library/Broker/rejected/                 inbox files the daemon refused, kept for inspection,
///                                                      each with `<name>.reason` (one line: why; see RefusalRecord)
/// <container>/Library/Broker/journal.jsonl             every accepted event: framed, checksummed records, appended
///                                                      and fsynced, compacted into a checkpoint as it grows
/// <container>/Library/Broker/journal-damaged-<ms>.txt  damaged records `entitlementctl journal-repair` set aside
/// <container>/Library/Broker/state.json                last generation and issue time (floors on restart)
/// <container>/Library/Broker/watch-link                present while the watch link is down
/// ```
public struct ContainerLayout: Sendable, Hashable {
    public var container: String
    public var group: String

    public init(container: String, group: String) {
        self.container = container
        self.group = group
    }

    public var preferencesDirectory: String { container + "/Library/Preferences" }
    public var sharedFileName: String { group + ".plist" }
    public var sharedFilePath: String { preferencesDirectory + "/" + sharedFileName }
    public var brokerDirectory: String { container + "/Library/Broker" }
    public var daemonLockPath: String { brokerDirectory + "/" + Self.daemonLockName }
    public var inboxDirectory: String { brokerDirectory + "/inbox" }
    public var rejectedDirectory: String { brokerDirectory + "/rejected" }
    public var journalPath: String { brokerDirectory + "/journal.jsonl" }
    public var statePath: String { brokerDirectory + "/state.json" }
    public var watchLinkPath: String { brokerDirectory + "/" + Self.watchLinkName }

    /// File names inside ``brokerDirectory`` that the daemon watches.
    public static let daemonLockName = "entitlementd.lock"
    public static let watchLinkName = "watch-link"

    /// Mode of every directory the broker creates (whatever the umask).
    public static let directoryMode: UInt32 = 0o750
    /// Mode of every file the broker creates (whatever the umask).
    public static let fileMode: UInt32 = 0o640
}
