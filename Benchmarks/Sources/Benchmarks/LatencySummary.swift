/// Percentiles of a set of latency samples, in microseconds.
struct LatencySummary: Sendable {
    var count: Int
    var p50: Double
    var p99: Double
    var max: Double

    /// Summarises `samples` (microseconds); `nil` when there are none.
    init?(microseconds samples: [Double]) {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        count = sorted.count
        p50 = Self.percentile(0.50, of: sorted)
        p99 = Self.percentile(0.99, of: sorted)
        max = sorted[sorted.count - 1]
    }

    /// Nearest-rank percentile of an ascending array.
    static func percentile(_ fraction: Double, of sorted: [Double]) -> Double {
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[Swift.max(0, Swift.min(sorted.count - 1, rank - 1))]
    }
}

/// The median of repeated measurements of one cost.
func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return .nan }
    return LatencySummary.percentile(0.5, of: values.sorted())
}
