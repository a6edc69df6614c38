import BrokerTools

await ToolEntry.main("entitlement-demo")
