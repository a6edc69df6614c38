import EntitlementCommands

await ToolEntry.main("entitlement-stress")
