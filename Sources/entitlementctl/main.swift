import BrokerTools
import EntitlementTools

await ToolStart.main(EntitlementctlCommand.self)
