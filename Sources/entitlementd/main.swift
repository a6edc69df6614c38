import EntitlementCommands

await ToolEntry.main("entitlementd")
