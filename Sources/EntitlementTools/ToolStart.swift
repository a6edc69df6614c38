import CLISupport
import SystemShims

/// How every tool's process runs its command: each executable's `main.swift` is one call here
/// (or to `ToolEntry` in `BrokerTools` for the multi-call demo), so `widget-renderer` links
/// only this library and not `BrokerTools`.
package enum ToolStart {
    /// Runs `command` with `arguments` (by default the process arguments after the executable's
    /// path); never returns. Runs on the caller's executor, so a command whose `run()` is
    /// `nonisolated(nonsending)` runs on the main thread.
    nonisolated(nonsending) package static func main(_ command: any RunnableCommand.Type, arguments: [String] = Array(CommandLine.arguments.dropFirst())) async -> Never {
        // A reader that closes our stdout (`| head`) must end us with an error, not a signal.
        SignalNumber.brokenPipe.ignore()
        // A write past the file-size limit (`ulimit -f`) must fail (EFBIG) where the writer
        // removes its temporary file, not kill the process mid-write and leave the file behind.
        SignalNumber.fileSizeLimitExceeded.ignore()
        await command.main(arguments)
    }
}
