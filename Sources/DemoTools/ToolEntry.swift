import BrokerTools
import CLISupport
import EntitlementTools

/// The entry point of the multi-call executables: `entitlement-demo entitlementd …`, or a link
/// to it named `entitlementd`, runs the daemon, so `swift run entitlement-demo` needs no other
/// product built. The shipped tools start through `ToolStart` (in `EntitlementTools`) instead, so
/// `widget-renderer` links no `BrokerTools`.
package enum ToolEntry {
    static let tools: [String: any RunnableCommand.Type] = [
        "entitlementd": EntitlementdCommand.self,
        "entitlementctl": EntitlementctlCommand.self,
        "widget-renderer": WidgetRendererCommand.self,
        "entitlement-demo": DemoCommand.self,
    ]

    /// Runs the tool `name` with the process arguments; never returns.
    package static func main(_ name: String) async -> Never {
        var arguments = Array(CommandLine.arguments.dropFirst())
        var tool = name
        if name == "entitlement-demo" {
            let invokedAs = CommandLine.arguments.first.map { String($0.split(separator: "/").last ?? "") } ?? name
            if invokedAs != name, Self.tools[invokedAs] != nil {
                tool = invokedAs
            } else if let first = arguments.first, first != name, Self.tools[first] != nil {
                tool = first
                arguments.removeFirst()
            }
        }
        guard let type = Self.tools[tool] else { fatalError("ToolEntry.main called with unknown tool \(tool)") }
        await ToolStart.main(type, arguments: arguments)
    }
}
