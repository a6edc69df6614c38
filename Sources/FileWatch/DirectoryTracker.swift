import SystemShims

/// Decides which directory the inotify instance watches: the target directory when it exists, otherwise
/// its nearest existing ancestor, descending as path components appear.
///
/// Exactly one watch is held at a time. Events for any other watch descriptor (for example the
/// `IN_IGNORED` that follows a watch this tracker removed, or another tracker's watch on a shared
/// instance) are ignored.
struct DirectoryTracker {
    /// The paths from the root (or `.` for a relative path) down to the target, inclusive.
    let levels: [String]
    /// The UTF-8 name of the component below each level, as the kernel names it in an event;
    /// `nil` for the target.
    private let nextComponent: [[UInt8]?]
    /// The names to report.
    let filter: NameFilter

    /// The one watch in place, and the index in ``levels`` of the directory it watches.
    private(set) var watch: (descriptor: CInt, level: Int)?
    /// Whether `armed` has been reported; later arrivals of the target are `rearmed`.
    private(set) var hasArmed = false

    var targetLevel: Int { levels.count - 1 }

    init(directory: String, filter: NameFilter) {
        let isAbsolute = directory.hasPrefix("/")
        let components = directory.split(separator: "/").map(String.init).filter { $0 != "." }
        var levels = [isAbsolute ? "/" : "."]
        var prefix = isAbsolute ? "" : "."
        for component in components {
            prefix += "/" + component
            levels.append(prefix)
        }
        // The target keeps the caller's spelling, so that errors name the path the caller gave.
        if !components.isEmpty { levels[levels.count - 1] = directory }
        self.levels = levels
        self.nextComponent = components.map { Array($0.utf8) } + [nil]
        self.filter = filter
    }

    /// Puts the watch on the deepest existing directory of the path, then keeps descending while the next
    /// component exists (it may have appeared before the watch was added), and records in `changes` whether
    /// the target was armed, removed or rearmed by this step.
    ///
    /// - Throws: ``FileWatchError`` for failures other than a missing component (ENOENT, ENOTDIR), such as
    ///   EACCES or ENOSPC; also ENOENT when not even the root level (`/` or `.`) exists.
    mutating func arm(using inotify: borrowing Inotify, into changes: inout PendingChanges) throws(FileWatchError) {
        let previous = watch
        var level = targetLevel
        var descriptor: CInt
        // Up: the deepest level that exists now.
        while true {
            do {
                descriptor = try inotify.addWatch(path: levels[level], mask: mask(for: level))
                break
            } catch where Self.meansMissing(error) && level > 0 {
                level -= 1
            }
        }
        // Down: a component created before the watch above was added raised no event, so look again.
        while level < targetLevel {
            let deeper: CInt
            do {
                deeper = try inotify.addWatch(path: levels[level + 1], mask: mask(for: level + 1))
            } catch where Self.meansMissing(error) {
                break
            }
            // Released even when it is the same watch: `deeper` holds it once more.
            inotify.removeWatch(descriptor)
            descriptor = deeper
            level += 1
        }
        if let previous {
            inotify.removeWatch(previous.descriptor)
        }
        watch = (descriptor, level)

        let wasTarget = previous?.level == targetLevel
        let isTarget = level == targetLevel
        switch (wasTarget, isTarget) {
        case (_, true) where !hasArmed:
            hasArmed = true
            changes.noteArmed()
        case (true, true) where previous?.descriptor != descriptor:
            // A different directory now sits at the path (found after an overflow).
            changes.noteRemoved()
            changes.noteRearmed()
        case (false, true):
            changes.noteRearmed()
        case (true, false):
            changes.noteRemoved()
        default:
            break
        }
    }

    /// Applies one kernel event.
    mutating func handle(_ event: InotifyEvent, using inotify: borrowing Inotify, into changes: inout PendingChanges) throws(FileWatchError) {
        if event.mask.contains(.queueOverflow) {
            changes.noteOverflow()
            // Lost events may include the target's removal or the appearance of a missing component.
            try arm(using: inotify, into: &changes)
            return
        }
        guard let watch, event.watchDescriptor == watch.descriptor else {
            return  // A watch this tracker already gave up; its IN_IGNORED and stragglers mean nothing now.
        }
        if !event.mask.isDisjoint(with: .watchEnded) {
            if event.mask.contains(.ignored) { inotify.forgetWatch(watch.descriptor) } else { inotify.removeWatch(watch.descriptor) }
            self.watch = nil
            if watch.level == targetLevel, hasArmed { changes.noteRemoved() }
            try arm(using: inotify, into: &changes)
            return
        }
        if watch.level == targetLevel {
            // A watch shared with another tracker reports the union of their masks: only this one's count.
            guard !event.nameBytes.isEmpty, !event.mask.isDisjoint(with: mask(for: targetLevel).intersection(.nameChanges)) else { return }
            if let reported = filter.reported(event) { changes.noteChanged(reported.name, alone: reported.alone) }
        } else if let next = nextComponent[watch.level], event.nameIs(next), !event.mask.isDisjoint(with: InotifyMask.create.union(.movedTo)) {
            try arm(using: inotify, into: &changes)
        }
    }

    private func mask(for level: Int) -> InotifyMask {
        guard level == targetLevel else { return .ancestorWatch }
        // Without removals the kernel queues (and wakes the reader for) arrivals only.
        return filter.arrivalsOnly ? InotifyMask.targetWatch.subtracting(.removals) : .targetWatch
    }

    private static func meansMissing(_ error: FileWatchError) -> Bool {
        error.errno == .noSuchFileOrDirectory || error.errno == .notDirectory
    }
}

/// Which changes to names of the watched directory a watch reports: those of a set of names, of
/// every name, or of the names a predicate accepts; and, with ``arrivalsOnly``, only a name's
/// arrival (created, written, moved in), not its removal (deleted, moved away).
///
/// A set's names are matched byte for byte against the name the kernel reports (their UTF-8),
/// as the file system itself tells names apart, straight from the read buffer: an event for any
/// other name costs no allocation, and a reported one is the set's own string.
struct NameFilter: Sendable {
    /// The names a set-based filter reports; `nil` for every name, or when a predicate decides.
    let names: Set<String>?
    /// ``names``, each with its UTF-8 and a set of it alone, ordered by UTF-8 length.
    private let listed: [ListedName]
    private let predicate: (@Sendable (String) -> Bool)?
    let arrivalsOnly: Bool

    /// One name of a set-based filter, ready to be matched and reported.
    struct ListedName: Sendable {
        let utf8: [UInt8]
        let name: String
        /// `[name]`, built once: the pending names of a batch in which only this name changed.
        let alone: Set<String>
    }

    /// The names in `names`; every name when `names` is `nil`.
    init(names: Set<String>?) {
        self.names = names
        listed = (names ?? []).map { ListedName(utf8: Array($0.utf8), name: $0, alone: [$0]) }.sorted { $0.utf8.count < $1.utf8.count }
        predicate = nil
        arrivalsOnly = false
    }

    /// The names `predicate` accepts (their arrivals only, with `arrivalsOnly`).
    init(_ predicate: @escaping @Sendable (String) -> Bool, arrivalsOnly: Bool) {
        names = nil
        listed = []
        self.predicate = predicate
        self.arrivalsOnly = arrivalsOnly
    }

    /// The name `event` carries when this filter reports it, with the set of it alone when the
    /// filter has one ready; `nil` when the name is not reported.
    func reported(_ event: InotifyEvent) -> (name: String, alone: Set<String>?)? {
        if names != nil {
            // The first listed name as long as the event's (names are ordered by length), then
            // each of that length.
            let length = event.nameBytes.count
            var low = 0, high = listed.count
            while low < high {
                let middle = (low + high) / 2
                if listed[middle].utf8.count < length { low = middle + 1 } else { high = middle }
            }
            while low < listed.count, listed[low].utf8.count == length {
                if event.nameIs(listed[low].utf8) { return (listed[low].name, listed[low].alone) }
                low += 1
            }
            return nil
        }
        let name = event.name
        guard predicate?(name) ?? true else { return nil }
        return (name, nil)
    }
}
