import SystemShims

/// The bits of an inotify watch mask and of an event's mask, with Swift names. Computed, not
/// stored (a stored static is a lazily initialized global, checked on every use): the reader
/// tests every event against several of these.
struct InotifyMask: OptionSet, Sendable, Hashable {
    let rawValue: UInt32

    static var closeWrite: InotifyMask { InotifyMask(rawValue: InotifyBits.closeWrite) }
    static var movedFrom: InotifyMask { InotifyMask(rawValue: InotifyBits.movedFrom) }
    static var movedTo: InotifyMask { InotifyMask(rawValue: InotifyBits.movedTo) }
    static var create: InotifyMask { InotifyMask(rawValue: InotifyBits.create) }
    static var delete: InotifyMask { InotifyMask(rawValue: InotifyBits.delete) }
    static var deleteSelf: InotifyMask { InotifyMask(rawValue: InotifyBits.deleteSelf) }
    static var moveSelf: InotifyMask { InotifyMask(rawValue: InotifyBits.moveSelf) }
    static var unmount: InotifyMask { InotifyMask(rawValue: InotifyBits.unmount) }
    static var queueOverflow: InotifyMask { InotifyMask(rawValue: InotifyBits.queueOverflow) }
    static var ignored: InotifyMask { InotifyMask(rawValue: InotifyBits.ignored) }
    static var onlyDirectory: InotifyMask { InotifyMask(rawValue: InotifyBits.onlyDirectory) }
    static var excludeUnlinked: InotifyMask { InotifyMask(rawValue: InotifyBits.excludeUnlinked) }

    /// Changes to a name inside the watched directory that the consumer must hear about.
    static var nameChanges: InotifyMask { closeWrite.union(movedTo).union(movedFrom).union(create).union(delete) }
    /// The name changes that remove a name from the watched directory.
    static var removals: InotifyMask { movedFrom.union(delete) }
    /// The watched directory itself went away, or its watch ended.
    static var watchEnded: InotifyMask { deleteSelf.union(moveSelf).union(unmount).union(ignored) }
    /// The mask for the target directory.
    static var targetWatch: InotifyMask { nameChanges.union(deleteSelf).union(moveSelf).union(onlyDirectory).union(excludeUnlinked) }
    /// The mask for an existing ancestor while the target is missing: only the appearance of the next path
    /// component and the ancestor's own disappearance matter.
    static var ancestorWatch: InotifyMask { create.union(movedTo).union(deleteSelf).union(moveSelf).union(onlyDirectory) }
}

/// One `struct inotify_event` of a batch, read in place: its name is a view of the read buffer,
/// valid only while the batch is being handled (``Inotify/Batch/forEach(_:)``), so an event that
/// names nobody the watch reports costs no allocation.
struct InotifyEvent {
    /// The watch descriptor; -1 for `IN_Q_OVERFLOW`.
    var watchDescriptor: CInt
    var mask: InotifyMask
    var cookie: UInt32
    /// The name inside the watched directory (its bytes up to the kernel's NUL padding), or
    /// empty for events about the directory itself. Valid only while the event is handled.
    var nameBytes: UnsafeRawBufferPointer

    /// Whether the name is exactly `utf8`, byte for byte, as the file system compares names.
    func nameIs(_ utf8: [UInt8]) -> Bool {
        guard nameBytes.count == utf8.count else { return false }
        return utf8.withUnsafeBytes { $0.elementsEqual(nameBytes) }
    }

    /// The name as a string (invalid UTF-8 repaired), for a name the watch reports.
    var name: String { String(decoding: nameBytes, as: UTF8.self) }

    /// Calls `body` with every complete event in `bytes` (the result of one `read`), advancing by
    /// header size plus `len`. A truncated trailing record, which the kernel never produces, is
    /// ignored rather than trusted.
    static func forEach(
        in bytes: UnsafeRawBufferPointer, headerSize: Int, _ body: (InotifyEvent) throws(FileWatchError) -> Void
    ) throws(FileWatchError) {
        var offset = 0
        while offset + headerSize <= bytes.count {
            let header = InotifyEventHeader(in: bytes, at: offset)
            let nameLength = header.nameLength
            let nameStart = offset + headerSize
            guard nameStart + nameLength <= bytes.count else { break }
            let nameBytes = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<(nameStart + nameLength)])
            let usedLength = nameBytes.firstIndex(of: 0) ?? nameLength
            try body(
                InotifyEvent(
                    watchDescriptor: header.watchDescriptor, mask: InotifyMask(rawValue: header.mask), cookie: header.cookie,
                    nameBytes: UnsafeRawBufferPointer(rebasing: nameBytes[..<usedLength])))
            offset = nameStart + nameLength
        }
    }
}
