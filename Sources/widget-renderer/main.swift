import EntitlementTools

await ToolStart.main(WidgetRendererCommand.self)
