import BrokerTools
import CLISupport
import SystemShims

/// A directory of symbolic links named after tools, all pointing at one multi-call executable.
///
/// A process started through `<directory>/entitlementd` runs under that name: the kernel takes
/// its `comm` (what `ps` and `pgrep entitlementd` match) from the path it executes, and
/// ``ToolEntry`` picks the tool from it. (Executing `/proc/self/exe` would show every child as
/// `exe`.) The caller owns the directory and removes it.
package struct ToolLinks: Sendable {
    package let directory: String

    /// Creates `directory` (mode 0700; it must not exist) and one link per name in `tools` to
    /// `executable`, which should be an absolute path (`/proc/self/exe` resolved).
    package init(directory: String, executable: String, tools: [String]) throws(ToolError) {
        self.directory = directory
        let created: Bool
        do { created = try FileSystem.makeDirectory(path: directory, mode: 0o700) } catch {
            throw ToolError(ExitCode(failedCall: error), "\(directory): cannot create: \(error)")
        }
        guard created else { throw ToolError(.temporaryFailure, "\(directory): cannot create: it already exists") }
        for tool in tools {
            do { try FileSystem.makeSymbolicLink(at: path(tool), to: executable) } catch {
                throw ToolError(ExitCode(failedCall: error), "\(path(tool)): cannot link to \(executable): \(error)")
            }
        }
    }

    /// The path that runs `tool`.
    package func path(_ tool: String) -> String { directory + "/" + tool }
}
