import SharedDefaults

extension SharedDefaults.Options {
    /// The options of a reader of the suite the daemon publishes: files owned by the reader's
    /// own user and by the daemon's user are trusted, and every other owner is refused. The
    /// daemon's user is the owner of the container's `Library/Broker`
    /// (``ContainerLayout/brokerDirectoryName``), as `SharedDefaults.Options.writerDirectory`
    /// requires it: so an app in the daemon's group reads what the daemon, running as its own
    /// user, publishes, with nothing to configure.
    public static var readingTheDaemon: SharedDefaults.Options {
        SharedDefaults.Options(writerDirectory: ContainerLayout.brokerDirectoryName)
    }
}
