import Glibc

extension AtomicFile {
    /// Removes the temporary files that ``replace(directory:name:bytes:mode:durable:)`` writers
    /// left in `directory` or in its staging subdirectory (``Staging``) when they died between
    /// creating and renaming them: names `.<name>.tmp-<pid>-<counter>` whose process no longer
    /// exists. A live writer's temp file is never touched. Errors (a missing directory, a file
    /// already gone) are ignored.
    ///
    /// - Returns: how many files were removed.
    @discardableResult
    package static func removeStaleTemporaryFiles(in directory: String) -> Int {
        removeStaleTemporaryFiles(directlyIn: directory) + removeStaleTemporaryFiles(directlyIn: directory + "/" + Staging.name)
    }

    private static func removeStaleTemporaryFiles(directlyIn directory: String) -> Int {
        guard let stream = opendir(directory) else { return 0 }
        defer { closedir(stream) }
        var removed = 0
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            // `.<name>.tmp-<pid>-<counter>`: the last two dash-separated fields are numbers.
            let fields = name.split(separator: "-", omittingEmptySubsequences: false)
            guard name.hasPrefix("."), fields.count >= 3, fields[fields.count - 3].hasSuffix(".tmp"),
                  let pid = Int32(fields[fields.count - 2]), pid > 0, UInt64(fields[fields.count - 1]) != nil
            else { continue }
            guard kill(pid, 0) == -1, errno == ESRCH else { continue }
            if unlink(directory + "/" + name) == 0 { removed += 1 }
        }
        return removed
    }
}
