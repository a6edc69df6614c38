import EntitlementCommands

await ToolEntry.main("widget-renderer")
