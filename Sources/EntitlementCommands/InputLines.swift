import Broker
import CLISupport
import Foundation

/// Reads JSON Lines from a file or standard input (`-`), with a size cap so a runaway input is
/// a clean error rather than an exhausted machine.
enum InputLines {
    static let maximumInput = 64 << 20

    /// The lines of `path` (`nil` or `-` = standard input) and the name to use in messages.
    static func read(_ path: String?) throws(ToolError) -> (lines: [String], source: String) {
        let data: Data
        let source: String
        if path == nil || path == "-" {
            source = "<stdin>"
            var collected = Data()
            while true {
                let chunk = FileHandle.standardInput.availableData
                if chunk.isEmpty { break }
                collected.append(chunk)
                if collected.count > maximumInput { throw ToolError(.dataError, "\(source): input exceeds \(maximumInput) bytes") }
            }
            data = collected
        } else {
            source = path!
            guard let handle = FileHandle(forReadingAtPath: source) else {
                throw ToolError(.usage, "\(source): cannot open for reading")
            }
            defer { try? handle.close() }
            do { data = try handle.read(upToCount: maximumInput + 1) ?? Data() } catch {
                throw ToolError(.dataError, "\(source): read failed: \(error.localizedDescription)")
            }
            if data.count > maximumInput { throw ToolError(.dataError, "\(source): input exceeds \(maximumInput) bytes") }
        }
        guard let text = String(bytes: data, encoding: .utf8) else {
            throw ToolError(.dataError, "\(source):\(firstInvalidLine(data)): line is not valid UTF-8")
        }
        return (text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init), source)
    }
}

/// The 1-based number of the first line of `data` that is not valid UTF-8.
private func firstInvalidLine(_ data: Data) -> Int {
    let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    return (lines.firstIndex { String(bytes: $0, encoding: .utf8) == nil } ?? 0) + 1
}

extension BrokerError {
    /// The same failure as a CLI error with the contract's exit code.
    var toolError: ToolError { ToolError(ExitCode(exitCode), description) }
}
