import Entitlements
import Foundation
import PropertyList

/// Publishes stress snapshots through Foundation's `UserDefaults(suiteName:)`, the way an app
/// would without this package, printing `ack N` after each `synchronize()` that returned true. Generations continue from
/// the one already stored.
/// On Linux, Foundation keeps a suite at `$XDG_CONFIG_HOME/<suite>.plist` (default `~/.config`),
/// so pointing XDG_CONFIG_HOME at a container's `Library/Preferences` makes it write the same
/// file the broker's readers read.
enum FoundationPublisher {
    static func run(count: Int64, suiteName: String) {
        guard let defaults = UserDefaults(suiteName: suiteName) else {
            Output.error("entitlement-stress: UserDefaults(suiteName: \(suiteName)) is nil\n")
            return
        }
        let start = Date()
        // Continue from whatever the file holds, as an app would after a relaunch.
        let stored = (defaults.dictionary(forKey: EntitlementSnapshot.defaultsKey)?["generation"] as? NSNumber)?.int64Value ?? 0
        for generation in (stored + 1)...(stored + count) {
            let snapshot = StressSnapshot.make(generation: generation, start: start)
            defaults.set(foundationValue(snapshot.propertyList), forKey: EntitlementSnapshot.defaultsKey)
            if defaults.synchronize() { Output.out("ack \(generation)\n") }
        }
    }

    /// A property-list value as the Foundation object graph UserDefaults stores.
    static func foundationValue(_ value: PropertyListValue) -> Any {
        switch value {
        case .string(let s): s
        case .integer(let i): NSNumber(value: i)
        case .real(let d): NSNumber(value: d)
        case .boolean(let b): b
        case .date(let d): d
        case .data(let bytes): Data(bytes)
        case .array(let items): items.map(foundationValue)
        case .dictionary(let members): Dictionary(uniqueKeysWithValues: members.map { ($0.key, foundationValue($0.value)) })
        }
    }
}
