import Foundation

/// The body of the one reader thread of a watch.
///
/// It owns the ``Inotify`` instance for its whole life: it creates it, arms the watch, blocks in `poll`
/// on the inotify descriptor and the wake-up eventfd, merges what it reads into the channel, and on
/// cancellation or error withdraws the eventfd from the channel, closes both descriptors, and only then
/// reports that it has finished. No other thread ever closes, reads or polls these descriptors.
enum WatchReader {
    /// Starts the reader on a new thread named after the directory.
    static func start(directory: String, names: Set<String>?, channel: WatchChannel) {
        let thread = Thread {
            run(directory: directory, names: names, channel: channel)
        }
        thread.name = "FileWatch \(directory)"
        thread.start()
    }

    static func run(directory: String, names: Set<String>?, channel: WatchChannel) {
        let inotify: Inotify
        do {
            inotify = try Inotify(directory: directory)
        } catch {
            channel.finishReader(failure: error)
            return
        }
        guard channel.registerWakeDescriptor(inotify.wakeDescriptor) else {
            inotify.close()
            channel.finishReader(failure: nil)
            return
        }
        var tracker = DirectoryTracker(directory: directory, names: names)
        let failure = readUntilCancelled(inotify, &tracker, channel)
        channel.withdrawWakeDescriptor()
        inotify.close()
        channel.finishReader(failure: failure)
    }

    /// Returns `nil` when cancelled, or the error that stopped the watch.
    private static func readUntilCancelled(
        _ inotify: borrowing Inotify,
        _ tracker: inout DirectoryTracker,
        _ channel: WatchChannel
    ) -> FileWatchError? {
        do throws(FileWatchError) {
            var changes = PendingChanges()
            try tracker.arm(using: inotify, into: &changes)
            channel.publish(changes)
            while true {
                let status = channel.readerStatus()
                if status.cancelled { return nil }
                // While the consumer has not taken what is pending, leave new events in the kernel queue.
                let readiness = try inotify.wait(forEvents: !status.hasPending)
                if readiness.woken { inotify.consumeWakeups() }
                if readiness.eventsReady { try drain(inotify, &tracker, channel) }
            }
        } catch {
            return error
        }
    }

    /// Reads until EAGAIN, publishing after every batch so that a waiting consumer is served at once.
    private static func drain(
        _ inotify: borrowing Inotify,
        _ tracker: inout DirectoryTracker,
        _ channel: WatchChannel
    ) throws(FileWatchError) {
        while let events = try inotify.readEvents() {
            var changes = PendingChanges()
            for event in events {
                try tracker.handle(event, using: inotify, into: &changes)
            }
            channel.publish(changes)
            if channel.readerStatus().cancelled { return }
        }
    }
}
