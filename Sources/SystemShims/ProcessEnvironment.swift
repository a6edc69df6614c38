import Glibc

/// This process's environment variables, read from the C library's `environ`.
///
/// What `ProcessInfo.processInfo.environment` gives (an entry without `=` is skipped), without
/// linking the part of FoundationEssentials that `ProcessInfo` brings (`Data`, `URL`,
/// `FileManager` and the JSON coders), which a one-shot tool would relocate at every start.
package enum ProcessEnvironment {
    /// The variables as they are now; a name set twice keeps its first value, as `getenv` finds it.
    package static var current: [String: String] {
        var variables: [String: String] = [:]
        var entry: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
        while let current = entry, let pointer = current.pointee {
            let pair = String(cString: pointer)
            if let equals = pair.utf8.firstIndex(of: UInt8(ascii: "=")) {
                let name = String(pair[..<equals])
                if variables[name] == nil { variables[name] = String(pair[pair.utf8.index(after: equals)...]) }
            }
            entry = current + 1
        }
        return variables
    }
}
