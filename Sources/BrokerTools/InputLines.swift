import Broker
import CLISupport
import FoundationEssentials
import SystemShims
import EntitlementTools

/// Reads JSON Lines (cut by ``JSONLines``) from a file or standard input (`-`), with a size cap
/// so a runaway input is a clean error rather than an exhausted machine.
enum InputLines {
    static let maximumInput = 64 << 20

    /// The lines of `path` (`nil` or `-` = standard input) and the name to use in messages.
    /// A file that is not there is a ``UsageError``; one that cannot be opened otherwise a
    /// ``ToolError`` with the status of the failed call (``ExitCode/init(failedCall:)``: 77
    /// without permission, 75 when descriptors or memory ran out); malformed input a
    /// ``ToolError`` (exit 65), a failed read one with ``ExitCode/init(failedCall:)``.
    static func read(_ path: String?) throws -> (lines: [String], source: String) {
        let bytes: [UInt8]
        let source: String
        if path == nil || path == "-" {
            source = "<stdin>"
            bytes = try FileDescriptor.withUnowned(FileDescriptor.standardInput) { input throws(ToolError) in
                try readAll(input, source: source)
            }
        } else {
            source = path!
            let descriptor: FileDescriptor
            do { descriptor = try FileDescriptor.open(source, .readOnly) } catch {
                // A path that names no file is a mistake in the command; any other failure is
                // the system's, with the contract's status for it (77 without permission).
                if error == .noSuchFileOrDirectory { throw UsageError("\(source): cannot open for reading: \(error)") }
                throw ToolError(ExitCode(failedCall: error), "\(source): cannot open for reading: \(error)")
            }
            bytes = try readAll(descriptor, source: source)
        }
        do { return (try JSONLines.split(bytes), source) } catch {
            throw ToolError(.dataError, "\(source):\(error)")
        }
    }

    /// Everything `descriptor` holds from its current offset, at most ``maximumInput`` bytes.
    private static func readAll(_ descriptor: borrowing FileDescriptor, source: String) throws(ToolError) -> [UInt8] {
        do { return try descriptor.readAll(limit: maximumInput) } catch {
            switch error {
            case .exceedsLimit: throw ToolError(.dataError, "\(source): input exceeds \(maximumInput) bytes")
            case .system(let errno): throw ToolError(ExitCode(failedCall: errno), "\(source): read failed: \(errno)")
            }
        }
    }
}

extension BrokerError {
    /// The same failure as a CLI error with the contract's exit code.
    var toolError: ToolError { ToolError(ExitCode(exitCode), description) }
}
