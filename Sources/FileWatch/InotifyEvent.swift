import SystemShims

/// The bits of an inotify watch mask and of an event's mask, with Swift names.
struct InotifyMask: OptionSet, Sendable, Hashable {
    let rawValue: UInt32

    static let closeWrite = InotifyMask(rawValue: InotifyBits.closeWrite)
    static let movedFrom = InotifyMask(rawValue: InotifyBits.movedFrom)
    static let movedTo = InotifyMask(rawValue: InotifyBits.movedTo)
    static let create = InotifyMask(rawValue: InotifyBits.create)
    static let delete = InotifyMask(rawValue: InotifyBits.delete)
    static let deleteSelf = InotifyMask(rawValue: InotifyBits.deleteSelf)
    static let moveSelf = InotifyMask(rawValue: InotifyBits.moveSelf)
    static let unmount = InotifyMask(rawValue: InotifyBits.unmount)
    static let queueOverflow = InotifyMask(rawValue: InotifyBits.queueOverflow)
    static let ignored = InotifyMask(rawValue: InotifyBits.ignored)
    static let onlyDirectory = InotifyMask(rawValue: InotifyBits.onlyDirectory)
    static let excludeUnlinked = InotifyMask(rawValue: InotifyBits.excludeUnlinked)

    /// Changes to a name inside the watched directory that the consumer must hear about.
    static let nameChanges: InotifyMask = [.closeWrite, .movedTo, .movedFrom, .create, .delete]
    /// The name changes that remove a name from the watched directory.
    static let removals: InotifyMask = [.movedFrom, .delete]
    /// The watched directory itself went away, or its watch ended.
    static let watchEnded: InotifyMask = [.deleteSelf, .moveSelf, .unmount, .ignored]
    /// The mask for the target directory.
    static let targetWatch: InotifyMask = [.nameChanges, .deleteSelf, .moveSelf, .onlyDirectory, .excludeUnlinked]
    /// The mask for an existing ancestor while the target is missing: only the appearance of the next path
    /// component and the ancestor's own disappearance matter.
    static let ancestorWatch: InotifyMask = [.create, .movedTo, .deleteSelf, .moveSelf, .onlyDirectory]
}

/// One parsed `struct inotify_event`.
struct InotifyEvent: Sendable, Hashable {
    /// The watch descriptor; -1 for `IN_Q_OVERFLOW`.
    var watchDescriptor: CInt
    var mask: InotifyMask
    var cookie: UInt32
    /// The name inside the watched directory, or empty for events about the directory itself.
    var name: String

    /// Parses every complete event in `bytes` (the result of one `read`), advancing by header size plus
    /// `len`. A truncated trailing record, which the kernel never produces, is ignored rather than trusted.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> [InotifyEvent] {
        let headerSize = InotifyEventHeader.size
        var events: [InotifyEvent] = []
        var offset = 0
        while offset + headerSize <= bytes.count {
            let header = InotifyEventHeader(in: bytes, at: offset)
            let nameLength = header.nameLength
            let nameStart = offset + headerSize
            guard nameStart + nameLength <= bytes.count else { break }
            let nameBytes = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<(nameStart + nameLength)])
            let usedLength = nameBytes.firstIndex(of: 0) ?? nameLength
            let name = String(decoding: nameBytes[..<usedLength], as: UTF8.self)
            events.append(InotifyEvent(
                watchDescriptor: header.watchDescriptor,
                mask: InotifyMask(rawValue: header.mask),
                cookie: header.cookie,
                name: name
            ))
            offset = nameStart + nameLength
        }
        return events
    }
}
