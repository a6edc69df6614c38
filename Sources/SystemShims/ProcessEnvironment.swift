import Glibc

/// This process's environment variables, read from the C library's `environ`.
///
/// What `ProcessInfo.processInfo.environment` gives (an entry without `=` is skipped), without
/// linking the part of FoundationEssentials that `ProcessInfo` brings (`Data`, `URL`,
/// `FileManager` and the JSON coders), which a one-shot tool would relocate at every start.
package enum ProcessEnvironment {
    /// The value of the variable `name` as it is now, as ``current`` would give it (the first
    /// entry of that name, as `getenv` finds it), or `nil`. A tool that needs a few variables
    /// asks for each: building ``current`` hashes every variable of the environment.
    package static func value(of name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }

    /// The variables as they are now; a name set twice keeps its first value, as `getenv` finds it.
    package static var current: [String: String] {
        let table: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
        guard let environment = table else { return [:] }
        var count = 0
        while environment[count] != nil { count += 1 }
        // Sized once, and each name and value made straight from the C string's bytes: a tool
        // reads this at every start.
        var variables = [String: String](minimumCapacity: count)
        for index in 0..<count {
            guard let entry = environment[index] else { break }
            let length = strlen(entry)
            entry.withMemoryRebound(to: UInt8.self, capacity: length) { start in
                let pair = UnsafeBufferPointer(start: start, count: length)
                guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { return }
                let name = String(decoding: UnsafeBufferPointer(rebasing: pair[..<equals]), as: UTF8.self)
                if variables[name] == nil {
                    variables[name] = String(decoding: UnsafeBufferPointer(rebasing: pair[(equals + 1)...]), as: UTF8.self)
                }
            }
        }
        return variables
    }
}
