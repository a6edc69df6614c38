import CLISupport
import Glibc

/// A directory of symbolic links named after tools, all pointing at one multi-call executable.
///
/// A process started through `<directory>/entitlementd` runs under that name: the kernel takes
/// its `comm` (what `ps` and `pgrep entitlementd` match) from the path it executes, and
/// ``ToolEntry`` picks the tool from it. Executing `/proc/self/exe` instead shows every child as
/// `exe`. The caller owns the directory and removes it.
package struct ToolLinks: Sendable {
    package let directory: String

    /// Creates `directory` (mode 0700) and one link per name in `tools` to `executable`, which
    /// should be an absolute path (`/proc/self/exe` resolved).
    package init(directory: String, executable: String, tools: [String]) throws(ToolError) {
        self.directory = directory
        guard mkdir(directory, 0o700) == 0 else {
            throw ToolError(.temporaryFailure, "\(directory): cannot create: \(String(cString: strerror(errno)))")
        }
        for tool in tools where symlink(executable, directory + "/" + tool) != 0 {
            throw ToolError(.temporaryFailure, "\(directory)/\(tool): cannot link to \(executable): \(String(cString: strerror(errno)))")
        }
    }

    /// The path that runs `tool`.
    package func path(_ tool: String) -> String { directory + "/" + tool }
}
