import BrokerCommands
import ToolSupport

await ToolStart.main(EntitlementctlCommand.self)
