import EntitlementCommands

await ToolEntry.main("entitlementctl")
