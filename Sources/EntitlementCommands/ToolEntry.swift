import BrokerCommands
import CLISupport
import ToolSupport
import WidgetRendererCommands

/// The entry point of the multi-call executables: `entitlement-demo entitlementd …`, or a link
/// to it named `entitlementd`, runs the daemon, so `swift run entitlement-demo` needs no other
/// product built. The shipped tools start through `ToolStart` (in `ToolSupport`) instead and link only their own
/// command library.
public enum ToolEntry {
    static let tools: [String: any RunnableCommand.Type] = [
        "entitlementd": EntitlementdCommand.self,
        "entitlementctl": EntitlementctlCommand.self,
        "widget-renderer": WidgetRendererCommand.self,
        "entitlement-demo": DemoCommand.self,
    ]

    /// Runs the tool `name` with the process arguments; never returns. `extraTools` adds tools
    /// that live in other modules (`entitlement-stress`, which links Foundation proper and so is
    /// kept out of the shipped tools).
    public static func main(_ name: String, extraTools: [String: any RunnableCommand.Type] = [:]) async -> Never {
        let tools = Self.tools.merging(extraTools) { _, extra in extra }
        var arguments = Array(CommandLine.arguments.dropFirst())
        var tool = name
        if name == "entitlement-demo" || name == "entitlement-stress" {
            let invokedAs = CommandLine.arguments.first.map { String($0.split(separator: "/").last ?? "") } ?? name
            if invokedAs != name, tools[invokedAs] != nil {
                tool = invokedAs
            } else if let first = arguments.first, first != name, tools[first] != nil {
                tool = first
                arguments.removeFirst()
            }
        }
        guard let type = tools[tool] else { fatalError("ToolEntry.main called with unknown tool \(tool)") }
        await ToolStart.main(type, arguments: arguments)
    }
}
