import EntitlementCommands

await ToolEntry.main("entitlement-demo")
