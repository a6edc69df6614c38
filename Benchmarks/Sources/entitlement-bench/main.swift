import Benchmarks

await EntitlementBench.main()
