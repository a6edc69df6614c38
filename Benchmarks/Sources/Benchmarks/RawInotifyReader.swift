// The benchmark calls the C library directly on purpose: its floors are the kernel without SystemShims.
import Glibc

/// The floor's reader (helper role `floor-reader`): blocked in `read` on a raw inotify
/// descriptor watching the directory for `IN_MOVED_TO` only (the floor's writer always renames,
/// so each write wakes it once); on that event for the name it opens the file, reads it whole,
/// takes the generation from its first 8 bytes and reports it.
enum RawInotifyReader {
    static func run(directory: String, name: String, index: Int) throws(BenchmarkError) -> Never {
        let inotify = inotify_init1(Int32(IN_CLOEXEC))
        guard inotify >= 0 else { throw .system("inotify_init1") }
        guard inotify_add_watch(inotify, directory, UInt32(IN_MOVED_TO)) >= 0 else {
            throw .system("inotify_add_watch", path: directory)
        }
        let path = directory + "/" + name
        ReportPipe.emit(reader: index, generation: 0, nanoseconds: 0)
        let eventBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
        let fileBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 8)
        var last: Int64 = 0
        let headerSize = MemoryLayout<inotify_event>.size
        while true {
            let count = read(inotify, eventBuffer.baseAddress, eventBuffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw .system("read inotify")
            }
            var offset = 0
            var matched = false
            while offset + headerSize <= count {
                let length = Int(eventBuffer.load(fromByteOffset: offset + 12, as: UInt32.self))
                if length > 0 {
                    let nameStart = eventBuffer.baseAddress! + offset + headerSize
                    let eventName = String(cString: nameStart.assumingMemoryBound(to: CChar.self))
                    if eventName == name { matched = true }
                }
                offset += headerSize + length
            }
            guard matched else { continue }
            let file = open(path, O_RDONLY | O_CLOEXEC)
            guard file >= 0 else { continue }
            var total = 0
            while true {
                let got = read(file, fileBuffer.baseAddress! + total, fileBuffer.count - total)
                if got <= 0 { break }
                total += got
            }
            close(file)
            guard total >= 8 else { continue }
            let generation = Int64(littleEndian: fileBuffer.loadUnaligned(as: Int64.self))
            if generation > last {
                last = generation
                ReportPipe.emit(reader: index, generation: generation, nanoseconds: MonotonicClock.now())
            }
        }
    }
}
