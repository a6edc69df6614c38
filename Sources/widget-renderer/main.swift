import ToolSupport
import WidgetRendererCommands

await ToolStart.main(WidgetRendererCommand.self)
