import EntitlementCommands
import StressCommands

await ToolEntry.main("entitlement-stress", extraTools: ["entitlement-stress": StressCommand.self])
