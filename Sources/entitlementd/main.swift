import BrokerTools
import EntitlementTools

await ToolStart.main(EntitlementdCommand.self)
