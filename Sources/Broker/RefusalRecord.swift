import EntitlementDefaults
import SystemShims

/// Why the daemon refused an inbox file, kept beside it in `rejected/` as `<inbox name>.reason`:
/// one line of UTF-8 text. The daemon writes it *before* it moves the file out of the inbox, so
/// a client that sees its file leave the inbox can tell a refusal from an application by looking
/// for the record, with no race.
package enum RefusalRecord {
    /// The record's file name for the inbox file `name`.
    package static func fileName(for name: String) -> String { name + ".reason" }

    /// Longest reason kept, in bytes (a reason is one error line; longer text is cut).
    package static let maximumLength = 4096

    /// Atomically writes `reason` (reduced to one line of at most ``maximumLength`` bytes) as the
    /// record of `name` in `directory`, which must exist.
    /// - Throws: ``BrokerError/io(path:operation:errno:)`` when the write fails.
    static func write(_ reason: String, for name: String, in directory: String, durable: Bool) throws(BrokerError) {
        let bytes = Array(oneLine(reason).utf8) + [0x0A]
        do {
            try AtomicFile.replace(
                directory: directory, name: fileName(for: name), bytes: bytes, mode: ContainerLayout.fileMode, durable: durable)
        } catch {
            throw .io(path: directory + "/" + fileName(for: name), operation: "write", errno: error)
        }
    }

    /// What is known about the inbox file `name` in `directory` (the `rejected/` directory):
    /// `nil` when it was not refused (neither the record nor the file is there); otherwise the
    /// recorded reason, or a sentence saying the file is there without one (a daemon that died
    /// between the record and the move leaves the file in the inbox, so this means a record that
    /// was removed or cannot be read). Reading refuses symlinks and anything but a small regular
    /// file, and never blocks.
    package static func reason(for name: String, in directory: String) -> String? {
        let recordPath = directory + "/" + fileName(for: name)
        if let fd = try? FileDescriptor.open(recordPath, .readOnly, options: [.noFollow, .nonBlocking, .closeOnExec]) {
            if (try? fd.fstat())?.type == .regular, let bytes = try? fd.readAll(limit: maximumLength + 1) {
                let text = oneLine(String(decoding: bytes, as: UTF8.self))
                if !text.isEmpty { return text }
            }
        }
        guard (try? fileStatus(atPath: directory + "/" + name, followSymlinks: false)) != nil else { return nil }
        return "refused; \(recordPath) is missing or unreadable"
    }

    /// `text` with every control character (line breaks included) turned into a space, trailing
    /// spaces dropped and cut to ``maximumLength`` bytes at a character boundary.
    static func oneLine(_ text: String) -> String {
        var line = ""
        var length = 0
        for scalar in text.unicodeScalars {
            let kept: Unicode.Scalar = scalar.properties.generalCategory == .control ? " " : scalar
            length += kept.utf8.count
            if length > maximumLength { break }
            line.unicodeScalars.append(kept)
        }
        while line.last == " " { line.removeLast() }
        return line
    }
}
