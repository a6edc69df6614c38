import BrokerCommands
import ToolSupport

await ToolStart.main(EntitlementdCommand.self)
