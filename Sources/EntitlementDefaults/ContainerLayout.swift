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
/// ```
public struct ContainerLayout: Sendable, Hashable {
    /// The app-group container directory (`--container`).
    public var container: String
    /// The app-group identifier (`--group`); it names the shared file.
    public var group: String

    /// The layout of `group`'s files in `container`. Nothing is created or checked.
    public init(container: String, group: String) {
        self.container = container
        self.group = group
    }

    /// `<container>/Library/Preferences`: the directory readers watch.
    public var preferencesDirectory: String { container + "/Library/Preferences" }
    /// `<group>.plist`: the shared file's name inside ``preferencesDirectory``.
    public var sharedFileName: String { group + ".plist" }
    /// The shared file readers read and the daemon replaces atomically.
    public var sharedFilePath: String { preferencesDirectory + "/" + sharedFileName }
    /// `<container>/Library/Broker`: the daemon's own files, readable by its user and group only.
    public var brokerDirectory: String { container + "/Library/" + Self.brokerDirectoryName }
    /// The lock file held by the one running daemon; removing it stops the daemon.
    public var daemonLockPath: String { brokerDirectory + "/" + Self.daemonLockName }
    /// Where `Broker`'s `IngestClient` queues events, one file per ingest, until the daemon journals them.
    public var inboxDirectory: String { brokerDirectory + "/inbox" }
    /// Where the daemon moves inbox files it refused, each with a `.reason` file beside it.
    public var rejectedDirectory: String { brokerDirectory + "/rejected" }
    /// The journal of every accepted event, from which a restarted daemon rebuilds its facts.
    public var journalPath: String { brokerDirectory + "/journal.jsonl" }
    /// The last published generation and issue time, so a restart never goes backwards.
    public var statePath: String { brokerDirectory + "/state.json" }

    /// The name of ``brokerDirectory`` inside `<container>/Library`: its owner is the daemon's
    /// user, whom readers trust (`SharedDefaults.Options.readingTheDaemon`).
    public static let brokerDirectoryName = "Broker"
    /// The name of ``daemonLockPath`` inside ``brokerDirectory``; the daemon watches it.
    public static let daemonLockName = "entitlementd.lock"

    /// Mode of every directory the broker creates (whatever the umask).
    public static let directoryMode: UInt32 = 0o750
    /// Mode of every file the broker creates (whatever the umask).
    public static let fileMode: UInt32 = 0o640
}
