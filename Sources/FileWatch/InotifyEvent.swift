import Glibc

/// The bits of an inotify watch mask and of an event's mask, with Swift names.
struct InotifyMask: OptionSet, Sendable, Hashable {
    let rawValue: UInt32

    static let closeWrite = InotifyMask(rawValue: UInt32(IN_CLOSE_WRITE))
    static let movedFrom = InotifyMask(rawValue: UInt32(IN_MOVED_FROM))
    static let movedTo = InotifyMask(rawValue: UInt32(IN_MOVED_TO))
    static let create = InotifyMask(rawValue: UInt32(IN_CREATE))
    static let delete = InotifyMask(rawValue: UInt32(IN_DELETE))
    static let deleteSelf = InotifyMask(rawValue: UInt32(IN_DELETE_SELF))
    static let moveSelf = InotifyMask(rawValue: UInt32(IN_MOVE_SELF))
    static let unmount = InotifyMask(rawValue: UInt32(IN_UNMOUNT))
    static let queueOverflow = InotifyMask(rawValue: UInt32(IN_Q_OVERFLOW))
    static let ignored = InotifyMask(rawValue: UInt32(IN_IGNORED))
    static let onlyDirectory = InotifyMask(rawValue: UInt32(IN_ONLYDIR))
    static let excludeUnlinked = InotifyMask(rawValue: UInt32(IN_EXCL_UNLINK))

    /// Changes to a name inside the watched directory that the consumer must hear about.
    static let nameChanges: InotifyMask = [.closeWrite, .movedTo, .movedFrom, .create, .delete]
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
        let headerSize = MemoryLayout<inotify_event>.size
        var events: [InotifyEvent] = []
        var offset = 0
        while offset + headerSize <= bytes.count {
            let header = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
            let nameLength = Int(header.len)
            let nameStart = offset + headerSize
            guard nameStart + nameLength <= bytes.count else { break }
            let nameBytes = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<(nameStart + nameLength)])
            let usedLength = nameBytes.firstIndex(of: 0) ?? nameLength
            let name = String(decoding: nameBytes[..<usedLength], as: UTF8.self)
            events.append(InotifyEvent(
                watchDescriptor: header.wd,
                mask: InotifyMask(rawValue: header.mask),
                cookie: header.cookie,
                name: name
            ))
            offset = nameStart + nameLength
        }
        return events
    }
}
