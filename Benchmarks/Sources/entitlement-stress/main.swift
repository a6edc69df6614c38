import StressCommands

await EntitlementStress.main()
