/// Everything the reader has seen and the consumer has not yet taken, merged into a bounded value.
///
/// Ordering rules, applied when the consumer takes the value (``events``):
/// 1. Structural events (armed, removed, rearmed) come first, in the order they happened, collapsed to at
///    most two: `[armed]`, `[armed, directoryRemoved]`, `[directoryRemoved]`, `[directoryRemoved, rearmed]`
///    or `[rearmed]`. A later state replaces an earlier one the consumer has not seen yet (removed then
///    rearmed after `armed` is just `armed`: the consumer reads the directory as it is now).
/// 2. When any structural event is pending, overflow and names are dropped: `armed` and `rearmed` mean
///    "re-read everything" and the consumer reads after taking them; `directoryRemoved` means everything is gone.
/// 3. Otherwise `overflow` subsumes names.
/// 4. Otherwise the names form one `changed` event.
/// More than ``maximumNames`` distinct names turn into `overflow`, so memory stays bounded whatever the
/// producer does, and nothing is dropped silently.
struct PendingChanges: Sendable, Equatable {
    /// Above this many distinct pending names, the consumer is told to re-read everything instead.
    static let maximumNames = 4096

    private(set) var structural: [FileWatchEvent] = []
    private(set) var names: Set<String> = []
    private(set) var overflowed = false

    var isEmpty: Bool { structural.isEmpty && names.isEmpty && !overflowed }

    /// Whether armed, removed or rearmed is pending: these are never held back by a settle window.
    var hasStructuralChange: Bool { !structural.isEmpty }

    /// The target directory is watched for the first time.
    mutating func noteArmed() {
        structural = [.armed]
    }

    /// The target directory went away.
    mutating func noteRemoved() {
        switch structural.last {
        case .directoryRemoved:
            break
        case .rearmed:
            // The consumer never learnt it was back; it is gone again.
            structural.removeLast()
            if structural.isEmpty { structural = [.directoryRemoved] }
        default:
            structural.append(.directoryRemoved)
        }
    }

    /// The target directory is watched again after a removal.
    mutating func noteRearmed() {
        switch structural {
        case [.armed, .directoryRemoved]:
            structural = [.armed]
        case [.directoryRemoved]:
            structural = [.directoryRemoved, .rearmed]
        case []:
            // The consumer has already been told about the removal.
            structural = [.rearmed]
        default:
            break
        }
    }

    /// Events were lost.
    mutating func noteOverflow() {
        overflowed = true
        names.removeAll()
    }

    /// A watched name changed.
    mutating func noteChanged(_ name: String) {
        noteChanged(name, alone: nil)
    }

    /// A watched name changed; `alone`, when given, is `[name]`, built once by the caller: the
    /// pending names when nothing else changed, taken as is rather than built and hashed again.
    mutating func noteChanged(_ name: String, alone: Set<String>?) {
        guard !overflowed else { return }
        if names.isEmpty, let alone {
            names = alone
            return
        }
        names.insert(name)
        if names.count > Self.maximumNames { noteOverflow() }
    }

    /// Adds `later`, which happened after everything in `self`.
    mutating func merge(_ later: PendingChanges) {
        for event in later.structural {
            switch event {
            case .armed: noteArmed()
            case .directoryRemoved: noteRemoved()
            case .rearmed: noteRearmed()
            case .overflow, .changed: break
            }
        }
        if later.overflowed { noteOverflow() }
        for name in later.names { noteChanged(name) }
    }

    /// The events to deliver, in order, following the rules above.
    var events: [FileWatchEvent] {
        var events: [FileWatchEvent] = []
        forEachEvent { event in
            events.append(event)
            return true
        }
        return events
    }

    /// Calls `body` with each of ``events`` in order, without building the array, until it
    /// returns `false`.
    func forEachEvent(_ body: (FileWatchEvent) -> Bool) {
        if !structural.isEmpty {
            for event in structural where !body(event) { return }
        } else if overflowed {
            _ = body(.overflow)
        } else if !names.isEmpty {
            _ = body(.changed(names))
        }
    }
}
