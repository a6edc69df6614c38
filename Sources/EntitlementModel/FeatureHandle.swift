/// A feature of one ``FeatureGate``, resolved once (``FeatureGate/handle(_:)``) so that a check on
/// a ``FeatureAccess`` is an array index and a comparison instead of two String hashes.
///
/// A handle is tied to the gate's set of feature names: used with a ``FeatureAccess`` prepared
/// from a gate with different features, it answers "locked" (fail closed), never another
/// feature's answer. A handle of a feature the gate does not know always answers "locked".
public struct FeatureHandle: Sendable, Hashable {
    /// The feature's name, as passed to ``FeatureGate/handle(_:)``.
    public let feature: String
    /// Position in the gate's sorted feature names; -1 for a feature the gate does not know.
    let index: Int
    /// ``FeatureGate/layoutFingerprint(ofSortedNames:)`` of the gate that resolved the handle.
    let layout: UInt64
}

extension FeatureGate {
    /// Resolves `feature` once, for repeated ``FeatureAccess/isUnlocked(_:at:currentCount:daysAgo:)-(FeatureHandle,_,_,_)``
    /// checks on accesses prepared from this gate (or an equal one).
    public func handle(_ feature: String) -> FeatureHandle {
        let names = sortedFeatureNames
        let index = names.firstIndex(of: feature) ?? -1
        return FeatureHandle(feature: feature, index: index, layout: Self.layoutFingerprint(ofSortedNames: names))
    }

    /// The rule names in a fixed order: the order of a ``FeatureAccess``'s table.
    var sortedFeatureNames: [String] { rules.keys.sorted() }

    /// FNV-1a over the sorted names, each followed by the byte 0xFF (which UTF-8 never contains):
    /// equal feature sets give equal fingerprints in every process.
    static func layoutFingerprint(ofSortedNames names: [String]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for name in names {
            for byte in name.utf8 {
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            }
            hash = (hash ^ 0xFF) &* 0x0000_0100_0000_01b3
        }
        return hash ^ UInt64(names.count)
    }
}
