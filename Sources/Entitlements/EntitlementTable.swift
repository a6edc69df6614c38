/// Every entitlement's status by its id (for example `plus`): what a snapshot carries.
///
/// Reads like a `[String: EntitlementStatus]`: ``subscript(_:)`` gives an id's status or `nil`,
/// ``count``, ``keys``, and iteration yields `(key:, value:)` pairs. What a caller should know:
///
/// - **Order.** Entries are kept in ascending order of their ids as `String` compares them
///   (`<`); ``keys`` and iteration follow that order, so two equal tables list their entries
///   the same way.
/// - **Each id once.** A dictionary literal that names an id twice traps, as a `Dictionary`
///   literal does; a snapshot file that names one twice is refused when it is read.
/// - **Cost.** A lookup is a binary search over the ids (O(log n) `String` comparisons).
/// - **Equality** is the statuses' equality id by id, as for a dictionary of them.
public struct EntitlementTable: Sendable, Hashable {
    /// The ids, ascending and distinct.
    private let ids: [String]
    /// The statuses, at their ids' positions.
    private let statuses: [EntitlementStatus]

    /// The table of `statuses` (in ascending id order).
    public init(_ statuses: [String: EntitlementStatus]) {
        let sorted = statuses.sorted(by: { $0.key < $1.key })
        self.init(ascendingIDs: sorted.map(\.key), statuses: sorted.map(\.value))
    }

    /// The table of `statuses`, each at the position of its id in `ids` (ascending and distinct).
    init(ascendingIDs ids: [String], statuses: [EntitlementStatus]) {
        self.ids = ids
        self.statuses = statuses
    }

    /// How many entitlements the table holds.
    public var count: Int { ids.count }

    /// Whether the table holds no entitlement.
    public var isEmpty: Bool { ids.isEmpty }

    /// The ids, ascending.
    public var keys: [String] { ids }

    /// The status of `id`, or `nil` when the table does not hold it.
    public subscript(id: String) -> EntitlementStatus? {
        let at = insertionPoint(of: id)
        return at < ids.count && ids[at] == id ? statuses[at] : nil
    }

    /// The first position whose id is not below `id`.
    private func insertionPoint(of id: String) -> Int {
        var low = 0, high = ids.count
        while low < high {
            let middle = (low + high) / 2
            if ids[middle] < id { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

extension EntitlementTable: Sequence {
    /// The entries in ascending id order.
    public func makeIterator() -> some IteratorProtocol<(key: String, value: EntitlementStatus)> {
        zip(ids, statuses).lazy.map { (key: $0, value: $1) }.makeIterator()
    }

    public var underestimatedCount: Int { count }
}

extension EntitlementTable: ExpressibleByDictionaryLiteral {
    /// A table of the literal's entries; naming an id twice traps, as in a `Dictionary` literal.
    public init(dictionaryLiteral elements: (String, EntitlementStatus)...) {
        self.init(Dictionary(uniqueKeysWithValues: elements))
    }
}
