import DemoTools

await ToolEntry.main("entitlement-demo")
