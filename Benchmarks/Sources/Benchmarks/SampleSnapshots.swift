import Entitlements
import Foundation
import PropertyList

/// Snapshots shaped like the daemon's, for the write side of the benchmark.
enum SampleSnapshots {
    /// The entitlement the default catalog's `widgets` feature needs.
    static let entitlement = "plus"

    /// Generation `generation` with `count` entitlements (`plus` plus padding ones); `plus`
    /// alternates between subscribed and expired so every generation changes what a widget shows.
    static func snapshot(generation: Int64, entitlements count: Int = 1, issuedAt: Date = Date()) -> EntitlementSnapshot {
        let active = generation % 2 == 0
        let expiry = issuedAt.addingTimeInterval(30 * 86_400)
        var statuses: [String: EntitlementStatus] = [:]
        statuses[entitlement] = EntitlementStatus(
            active: active, state: active ? .subscribed : .expired, expiresAt: expiry,
            productId: "com.irenews.geko.plus.monthly", willRenew: active)
        for index in 1..<max(1, count) {
            statuses["extra.\(index)"] = EntitlementStatus(
                active: true, state: .subscribed, periodType: index % 3 == 0 ? .trial : .normal,
                expiresAt: expiry.addingTimeInterval(Double(index)), productId: "com.example.product.\(index)", willRenew: true)
        }
        return EntitlementSnapshot(generation: generation, issuedAt: issuedAt, nextTransition: expiry, entitlements: statuses)
    }

    /// The shared file's bytes holding `snapshot`, exactly as ``SharedDefaults/publish(_:)`` writes them.
    static func fileBytes(_ snapshot: EntitlementSnapshot) throws(BenchmarkError) -> [UInt8] {
        do {
            return try PropertyListCodec.encode(.dictionary([EntitlementSnapshot.defaultsKey: snapshot.propertyList]), format: .binary)
        } catch {
            throw BenchmarkError("encode snapshot: \(error)")
        }
    }
}
