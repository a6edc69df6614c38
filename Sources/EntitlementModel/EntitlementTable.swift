#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
/// - **Cost.** A lookup is a binary search over the ids (O(log n) `String` comparisons). A
///   status is made when it is read: its ``EntitlementStatus/productId`` is kept as UTF-8 bytes
///   and becomes a `String` on each read (an allocation when it is longer than 15 bytes), which
///   is what lets a reader decode a snapshot without one allocation per entry.
/// - **Equality** is the statuses' equality id by id, as for a dictionary of them.
public struct EntitlementTable: Sendable, Hashable {
    /// The ids, ascending and distinct.
    private(set) var ids: [String]
    /// The statuses, at their ids' positions.
    private var rows: [Row]
    /// The product ids' UTF-8 bytes, each row's at `productStart` for `productCount` bytes.
    private var productIDs: [UInt8]
    /// The granting products of the rows whose list is not the default one (the deciding
    /// product alone while active), each row's at `productList`.
    private var productLists: [[String]]

    /// One status without its product id's `String`: plain values only, so a table of them is
    /// made and freed without a call per entry.
    struct Row {
        var expiresAt: Double
        var productStart: Int
        /// -1 when the status has no product id.
        var productCount: Int
        /// Where the row's granting products are in `productLists`; -1 for the default list.
        var productList: Int = -1
        var revocation: Revocation? = nil
        var renewalPending = false
        var active: Bool
        var hasExpiry: Bool
        var willRenew: Bool
        var state: EntitlementState
        var periodType: PeriodType
        var ownership: Ownership
    }

    /// An empty table.
    public init() {
        ids = []
        rows = []
        productIDs = []
        productLists = []
    }

    /// The table of `statuses` (in ascending id order).
    public init(_ statuses: [String: EntitlementStatus]) {
        self.init()
        ids.reserveCapacity(statuses.count)
        rows.reserveCapacity(statuses.count)
        for (id, status) in statuses.sorted(by: { $0.key < $1.key }) { append(id, status) }
    }

    /// How many entitlements the table holds.
    public var count: Int { ids.count }

    /// Whether the table holds no entitlement.
    public var isEmpty: Bool { ids.isEmpty }

    /// The ids, ascending.
    public var keys: [String] { ids }

    /// The statuses, in the order of ``keys``.
    public var values: [EntitlementStatus] { rows.indices.map(status(at:)) }

    /// The status of `id`, or `nil` when the table does not hold it. Setting a status adds the
    /// id at its place in the order or replaces its status; setting `nil` removes it. Setting is
    /// O(n) and keeps a replaced product id's bytes: for building a table once, not for editing
    /// one at length (``init(_:)`` takes a dictionary).
    public subscript(id: String) -> EntitlementStatus? {
        get { position(of: id).map(status(at:)) }
        set {
            guard let newValue else {
                if let found = position(of: id) { remove(at: found) }
                return
            }
            if let found = position(of: id) {
                rows[found] = row(newValue)
            } else {
                let at = insertionPoint(of: id)
                ids.insert(id, at: at)
                rows.insert(row(newValue), at: at)
            }
        }
    }

    /// How many bytes the table keeps for product ids (what its memory grows with besides the entries).
    var productIDByteCount: Int { productIDs.count }

    /// When `id`'s access is in force and its state, without making the product id's `String`:
    /// what a feature decision reads. `nil` when the table does not hold `id`.
    func access(of id: String) -> (period: EntitlementStatus.AccessPeriod, state: EntitlementState, revocation: Revocation?)? {
        guard let found = position(of: id) else { return nil }
        let row = rows[found]
        return (EntitlementStatus.AccessPeriod(active: row.active, expiresAt: row.expiry), row.state, row.revocation)
    }

    // MARK: Positions

    /// The position of `id`, by binary search.
    private func position(of id: String) -> Int? {
        let at = insertionPoint(of: id)
        return at < ids.count && ids[at] == id ? at : nil
    }

    /// The first position whose id is not below `id`.
    private func insertionPoint(of id: String) -> Int {
        var low = 0, high = ids.count
        while low < high {
            let middle = (low &+ high) >> 1
            if ids[middle] < id { low = middle &+ 1 } else { high = middle }
        }
        return low
    }

    private func status(at position: Int) -> EntitlementStatus {
        let row = rows[position]
        return EntitlementStatus(
            active: row.active, state: row.state, periodType: row.periodType, expiresAt: row.expiry,
            productId: productID(of: row), willRenew: row.willRenew, ownership: row.ownership,
            products: row.productList >= 0 ? productLists[row.productList] : nil, revocation: row.revocation,
            renewalPending: row.renewalPending)
    }

    /// The row's granting products, the default list made when it is not stored.
    private func products(of row: Row) -> [String] {
        row.productList >= 0 ? productLists[row.productList] : EntitlementStatus.defaultProducts(active: row.active, productId: productID(of: row))
    }

    private func productID(of row: Row) -> String? {
        guard row.productCount >= 0 else { return nil }
        let start = row.productStart
        return productIDs.withUnsafeBufferPointer { bytes in
            String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<start + row.productCount]), as: UTF8.self)
        }
    }

    /// `status` as a row, its product id's bytes appended to ``productIDs``.
    private mutating func row(_ status: EntitlementStatus) -> Row {
        var row = Row(status) { bytes in
            defer { productIDs.append(contentsOf: bytes) }
            return productIDs.count
        }
        if status.products != EntitlementStatus.defaultProducts(active: status.active, productId: status.productId) {
            row.productList = productLists.count
            productLists.append(status.products)
        }
        return row
    }

    /// Appends `id` with `status`; `id` must come after every id already in the table.
    private mutating func append(_ id: String, _ status: EntitlementStatus) {
        ids.append(id)
        rows.append(row(status))
    }

    private mutating func remove(at position: Int) {
        ids.remove(at: position)
        rows.remove(at: position)  // its product id's bytes stay unreferenced until the table is rebuilt
    }

    // MARK: Equality

    public static func == (left: EntitlementTable, right: EntitlementTable) -> Bool {
        guard left.ids == right.ids else { return false }
        for position in left.rows.indices {
            let one = left.rows[position], other = right.rows[position]
            guard one.active == other.active, one.state == other.state, one.periodType == other.periodType,
                one.willRenew == other.willRenew, one.ownership == other.ownership, one.expiry == other.expiry,
                left.sameProductID(one, as: other, of: right), one.revocation == other.revocation, one.renewalPending == other.renewalPending,
                one.productList < 0 && other.productList < 0 || left.products(of: one) == right.products(of: other)
            else { return false }
        }
        return true
    }

    /// Whether `row`'s product id equals `other`'s (a row of `table`) as strings compare them:
    /// the same bytes, or canonically equivalent texts.
    private func sameProductID(_ row: Row, as other: Row, of table: EntitlementTable) -> Bool {
        guard row.productCount >= 0, other.productCount >= 0 else { return row.productCount < 0 && other.productCount < 0 }
        let sameBytes = productIDs.withUnsafeBufferPointer { mine in
            table.productIDs.withUnsafeBufferPointer { theirs in
                mine[row.productStart..<row.productStart + row.productCount]
                    .elementsEqual(theirs[other.productStart..<other.productStart + other.productCount])
            }
        }
        return sameBytes || productID(of: row) == table.productID(of: other)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ids.count)
        for (id, status) in self {
            hasher.combine(id)
            hasher.combine(status)
        }
    }
}

extension EntitlementTable.Row {
    /// A row without a product id (the product id's bytes are attached by the table or its builder)
    /// and with the expiry `expiresAt` (seconds since the reference date, `nil` for none): the one
    /// place that spells how a row stores "none" for either.
    init(
        active: Bool, state: EntitlementState, periodType: PeriodType, ownership: Ownership, willRenew: Bool,
        expiresAt: Double?
    ) {
        self.init(
            expiresAt: expiresAt ?? 0, productStart: 0, productCount: -1, active: active, hasExpiry: expiresAt != nil,
            willRenew: willRenew, state: state, periodType: periodType, ownership: ownership)
    }

    /// `status` as a row; `appendProductID` keeps its product id's UTF-8 bytes and answers
    /// where they start.
    init(_ status: EntitlementStatus, appendingProductID appendProductID: (UnsafeBufferPointer<UInt8>) -> Int) {
        self.init(
            active: status.active, state: status.state, periodType: status.periodType, ownership: status.ownership,
            willRenew: status.willRenew, expiresAt: status.expiresAt?.timeIntervalSinceReferenceDate)
        revocation = status.revocation
        renewalPending = status.renewalPending
        if var productID = status.productId {
            productID.withUTF8 { bytes in
                productStart = appendProductID(bytes)
                productCount = bytes.count
            }
        }
    }

    /// The expiry as a `Date`, `nil` when there is none.
    var expiry: Date? { hasExpiry ? Date(timeIntervalSinceReferenceDate: expiresAt) : nil }
}

extension EntitlementTable: Sequence {
    /// The entries in ascending id order, each status made as it is reached.
    public struct Iterator: IteratorProtocol {
        private let table: EntitlementTable
        private var position = 0

        init(_ table: EntitlementTable) { self.table = table }

        public mutating func next() -> (key: String, value: EntitlementStatus)? {
            guard position < table.ids.count else { return nil }
            defer { position &+= 1 }
            return (table.ids[position], table.status(at: position))
        }
    }

    public func makeIterator() -> Iterator { Iterator(self) }

    public var underestimatedCount: Int { count }
}

extension EntitlementTable: ExpressibleByDictionaryLiteral {
    /// A table of the literal's entries; naming an id twice traps, as in a `Dictionary` literal.
    public init(dictionaryLiteral elements: (String, EntitlementStatus)...) {
        self.init()
        ids.reserveCapacity(elements.count)
        rows.reserveCapacity(elements.count)
        for (id, status) in elements.sorted(by: { $0.0 < $1.0 }) {
            precondition(ids.last.map { $0 < id } ?? true, "EntitlementTable literal names the id '\(id)' twice")
            append(id, status)
        }
    }
}

extension EntitlementTable: CustomStringConvertible {
    /// The entries as a dictionary literal, in ascending id order.
    public var description: String {
        guard !isEmpty else { return "[:]" }
        return "[" + map { "\($0.key.debugDescription): \($0.value)" }.joined(separator: ", ") + "]"
    }
}

extension EntitlementTable {
    /// Builds a table from entries read in any order: appended as they come, then put in order
    /// once (not at all when they came ascending, as a writer that sorts its keys stores them).
    struct Builder {
        private var table = EntitlementTable()
        private var ascending = true
        /// The product ids' bytes as they are read, made into the table's array once at the end.
        private let productIDs: ByteBuffer
        /// Where each long product id was kept, by its identity.
        private var sharedProductIDs: [Int: (start: Int, count: Int)] = [:]

        /// A builder for about `capacity` entries.
        init(capacity: Int) {
            table.ids.reserveCapacity(capacity)
            table.rows.reserveCapacity(capacity)
            productIDs = ByteBuffer(capacity: capacity &* 32)  // about a product id of 32 bytes per entry
        }

        /// Adds `id` with `row`, whose product id (if any) ``appendProductID(_:identity:to:)`` appended.
        mutating func append(_ id: String, _ row: Row) {
            if ascending, let last = table.ids.last, !(last < id) { ascending = false }
            table.ids.append(id)
            table.rows.append(row)
        }

        /// Adds `id` with `status`.
        mutating func append(_ id: String, status: EntitlementStatus) {
            var row = Row(status, appendingProductID: productIDs.append)
            if status.products != EntitlementStatus.defaultProducts(active: status.active, productId: status.productId) {
                row.productList = table.productLists.count
                table.productLists.append(status.products)
            }
            append(id, row)
        }

        /// Sets `products` as the granting products of `row` (whose product id is already
        /// appended), kept only when they are not the default list.
        mutating func setProducts(_ products: [String], of row: inout Row) {
            let isDefault: Bool
            if row.active, row.productCount >= 0 {
                isDefault = products.count == 1
                    && products[0].utf8.elementsEqual(UnsafeBufferPointer(start: productIDs.start + row.productStart, count: row.productCount))
            } else {
                isDefault = products.isEmpty
            }
            guard !isDefault else { return }
            row.productList = table.productLists.count
            table.productLists.append(products)
        }

        /// Appends `bytes` (UTF-8) as the product id of `row`, which is appended next.
        ///
        /// - Parameter identity: the same number for the same text wherever it is used (the
        ///   string object of a file, or a string's storage), `nil` if there is none. A product id
        ///   longer than ``copiedFreely`` bytes is kept once per identity, so a file that shares
        ///   one long string among many entries cannot make the table many times its size.
        @inline(__always) mutating func appendProductID(_ bytes: UnsafeBufferPointer<UInt8>, identity: Int?, to row: inout Row) {
            if bytes.count > Self.copiedFreely, let identity {
                return appendSharedProductID(bytes, identity: identity, to: &row)
            }
            row.productStart = productIDs.append(bytes)
            row.productCount = bytes.count
        }

        /// Product ids up to this many bytes are copied for every entry that uses them.
        static var copiedFreely: Int { 64 }

        @inline(never) private mutating func appendSharedProductID(_ bytes: UnsafeBufferPointer<UInt8>, identity: Int, to row: inout Row) {
            if let known = sharedProductIDs[identity] {
                row.productStart = known.start
                row.productCount = known.count
                return
            }
            row.productStart = productIDs.append(bytes)
            row.productCount = bytes.count
            sharedProductIDs[identity] = (row.productStart, row.productCount)
        }

        /// The table in ascending id order, or the first id (in that order) named twice.
        consuming func finish() -> Result<EntitlementTable, DuplicateID> {
            table.productIDs = Array(UnsafeBufferPointer(start: productIDs.start, count: productIDs.count))
            guard !ascending else { return .success(table) }
            let order = table.ids.indices.sorted { table.ids[$0] < table.ids[$1] }
            var sorted = EntitlementTable()
            sorted.productIDs = table.productIDs
            sorted.productLists = table.productLists
            sorted.ids.reserveCapacity(order.count)
            sorted.rows.reserveCapacity(order.count)
            for position in order {
                let id = table.ids[position]
                if let last = sorted.ids.last, !(last < id) { return .failure(DuplicateID(id: id)) }
                sorted.ids.append(id)
                sorted.rows.append(table.rows[position])
            }
            return .success(sorted)
        }

        /// An id named twice (as `String` compares them).
        struct DuplicateID: Error {
            var id: String
        }
    }

    /// A growable run of bytes whose append is a capacity check and a copy (an array's append
    /// of a few bytes costs several times that).
    final class ByteBuffer {
        private(set) var start: UnsafeMutablePointer<UInt8>
        private(set) var count = 0
        private var capacity: Int

        init(capacity: Int) {
            self.capacity = Swift.max(capacity, 16)
            start = .allocate(capacity: self.capacity)
        }

        deinit { start.deallocate() }

        /// Appends `bytes` and answers where they start.
        @inline(__always) func append(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
            let at = count
            if bytes.count > capacity &- count { grow(toHold: count + bytes.count) }
            if let source = bytes.baseAddress { (start + count).initialize(from: source, count: bytes.count) }
            count = at &+ bytes.count
            return at
        }

        @inline(never) private func grow(toHold needed: Int) {
            capacity = Swift.max(needed, 2 * capacity)
            let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            larger.initialize(from: start, count: count)
            start.deallocate()
            start = larger
        }
    }
}
