import Dispatch
import Entitlements
import SystemShims
import FoundationEssentials
import Synchronization

/// Reads and decodes inbox files (verifying every signature they carry) on all cores, a few
/// files ahead of the drain, and hands each file's result to the drain in the order it asks.
///
/// Only the decoding runs concurrently: a file's result depends on nothing but its bytes and the
/// catalog, so decoding it early changes nothing. Which files a step applies, in what order,
/// what is journaled and what is quarantined stay the drain's decisions, made one file at a time
/// on its own thread. A result decoded ahead but not used by the step that asked (the step was
/// full) is kept for the next step of the same drain; the decoder lives for one drain only, so
/// a catalog reload never meets a result decoded under the previous catalog.
struct InboxDecoder {
    typealias Decoded = Result<[EventLine.Decoded], BrokerError>

    let inbox: Inbox
    let catalog: Catalog
    /// Files decoded at once when the drain asks for one not yet decoded.
    let batch: Int
    private var ahead: [String: Decoded] = [:]

    /// `batch` defaults to twice the online CPUs, so that a large file does not leave a core
    /// idle, or fewer when the descriptor limit allows no more files open at once.
    init(inbox: Inbox, catalog: Catalog, batch: Int = min(2 * InboxDecoder.onlineProcessors, DaemonDescriptors.decodingReads)) {
        self.inbox = inbox
        self.catalog = catalog
        self.batch = max(1, batch)
    }

    /// The processors online (``Processors/online``), read once: a drain runs on
    /// every inbox change and needs only a batch size.
    static let onlineProcessors = Processors.online

    /// The decoded lines of inbox file `name` (or why it cannot be used: ``BrokerError/badInput(_:)``
    /// for bad data, another case for a failing system call), decoding it together with the
    /// first of `following` (the files the drain will ask for next) when it is not decoded yet.
    mutating func decoded(_ name: String, following: some Collection<String>) -> Decoded {
        if let known = ahead.removeValue(forKey: name) { return known }
        var names = [name]
        for other in following where names.count < batch && other != name && ahead[other] == nil { names.append(other) }
        let results = Self.decode(names, inbox: inbox, catalog: catalog)
        for (other, result) in zip(names.dropFirst(), results.dropFirst()) { ahead[other] = result }
        return results[0]
    }

    /// Each of `names` decoded, concurrently when there are several.
    private static func decode(_ names: [String], inbox: Inbox, catalog: Catalog) -> [Decoded] {
        @Sendable func decode(_ name: String) -> Decoded {
            Result { () throws(BrokerError) in try EventLine.keptAll(try inbox.read(name), source: name, signatures: catalog.signatures) }
        }
        guard names.count > 1 else { return names.map(decode) }
        let results = Mutex([Decoded?](repeating: nil, count: names.count))
        DispatchQueue.concurrentPerform(iterations: names.count) { index in
            let result = decode(names[index])
            results.withLock { $0[index] = result }
        }
        return results.withLock { $0.map { $0! } }
    }
}
