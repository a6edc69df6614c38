/// A property list's `<dict>`: values by string key, each key once.
///
/// The members are kept in ascending key order (`String` `<`, under which canonically
/// equivalent texts are one key) in one array: a reader walks them in order without hashing, a
/// look-up is a binary search (log₂ n comparisons), and the binary encoder writes them as they
/// stand. Setting a key that sorts after every other appends it (the decoders and the snapshot
/// build theirs so); another new key moves the members after it, so build a large dictionary
/// from unordered pairs with ``init(uniqueKeysWithValues:)``, which sorts them once.
public struct PropertyListDictionary: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    public typealias Element = (key: String, value: PropertyListValue)

    /// One key and its value.
    struct Member: Sendable, Hashable {
        var key: String
        var value: PropertyListValue
    }

    /// A key found twice by ``init(sorting:)``.
    struct RepeatedKey: Error { let key: String }

    /// In ascending key order, no key twice.
    private(set) var members: [Member]

    /// An empty dictionary, with room for `capacity` keys.
    public init(minimumCapacity capacity: Int = 0) {
        members = []
        members.reserveCapacity(capacity)
    }

    /// The dictionary of `pairs`, in any order; a key given twice is a programming error (it
    /// traps, as `Dictionary(uniqueKeysWithValues:)` does).
    public init(uniqueKeysWithValues pairs: some Sequence<(String, PropertyListValue)>) {
        do throws(RepeatedKey) { try self.init(sorting: pairs.map { Member(key: $0.0, value: $0.1) }) } catch {
            preconditionFailure("the key \(error.key.quotedForMessage) is given twice")
        }
    }

    public init(dictionaryLiteral elements: (String, PropertyListValue)...) { self.init(uniqueKeysWithValues: elements) }

    /// The dictionary of `members`, sorted unless they already are (one comparison per member
    /// then, as in a file written with sorted keys); throws the first key, in order, there twice.
    init(sorting members: [Member]) throws(RepeatedKey) {
        self.members = members
        var position = 1
        while position < members.count, members[position - 1].key < members[position].key { position += 1 }
        guard position < members.count else { return }
        self.members.sort { $0.key < $1.key }
        for position in self.members.indices.dropFirst() where !(self.members[position - 1].key < self.members[position].key) {
            throw RepeatedKey(key: self.members[position].key)
        }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { members.count }
    public subscript(position: Int) -> Element { (members[position].key, members[position].value) }

    /// The value for `key`; setting `nil` removes the key.
    public subscript(key: String) -> PropertyListValue? {
        get {
            let (position, found) = position(of: key)
            return found ? members[position].value : nil
        }
        set {
            let (position, found) = position(of: key)
            switch (found, newValue) {
            case (true, let value?): members[position].value = value
            case (true, nil): members.remove(at: position)
            case (false, let value?) where position == members.count: members.append(Member(key: key, value: value))
            case (false, let value?): members.insert(Member(key: key, value: value), at: position)
            case (false, nil): break
            }
        }
    }

    /// The value for `key` if it is at `start` or after, moving `start` past it (or to where it
    /// would be): keys asked for in ascending order walk the members once.
    public func value(forKey key: String, from start: inout Int) -> PropertyListValue? {
        while start < members.count, members[start].key < key { start += 1 }
        guard start < members.count, members[start].key == key else { return nil }
        start += 1
        return members[start - 1].value
    }

    /// Where `key` is, or where it would go to keep the order; a key after every other is
    /// found with one comparison.
    private func position(of key: String) -> (position: Int, found: Bool) {
        guard let last = members.last?.key, !(last < key) else { return (members.count, false) }
        var low = 0, high = members.count - 1
        while low < high {
            let middle = low + (high - low) / 2
            if members[middle].key < key { low = middle + 1 } else { high = middle }
        }
        return (low, members[low].key == key)
    }
}
