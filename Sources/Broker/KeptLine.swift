import Entitlements
import StoreKitFormats

/// How the daemon keeps an event line it holds (queued by `ingest`, or journaled) under a
/// catalog: the one rule by which replay, a catalog reload and the drain read lines.
///
/// Kept means kept: what the current catalog says decides what a line grants, never whether it
/// is kept. A line whose events are of another app or environment is read, and its facts are
/// kept and grant nothing under this catalog (``Catalog/counts(_:)``); an intact line that this
/// catalog's signature policy does not read (unsigned, or a JWS that chains to no trusted root,
/// under `signatures: required`) is kept as it is, to be read under a catalog that reads it.
/// Only a line no catalog could read (not JSON, of no known shape, a field out of range, a JWS
/// that is not intact) is not kept.
package enum KeptLine {
    /// What a line is under a signature policy.
    package enum Reading: Sendable {
        /// Read: its events, kept whatever their origin.
        case read([StoreEvent])
        /// Intact, but not read under this policy: kept as it is and granting nothing; its
        /// events, as a catalog that reads it would read them.
        case unread([StoreEvent])
    }

    /// `line` read under `signatures`.
    /// - Throws: the decoding error under `signatures` when no catalog could read the line.
    package static func reading(_ line: some Collection<UInt8>, signatures: SignaturePolicy) throws(EventDecodingError) -> Reading {
        do {
            return .read(try EventDecoder.decode(line: line, signatures: signatures))
        } catch {
            // `optional` reads every intact line: unsigned ones, and a JWS whatever its root (a
            // grant still needs the key its `kid` names).
            var relaxed = signatures
            relaxed.requirement = .optional
            guard signatures.requirement == .required, let events = try? EventDecoder.decode(line: line, signatures: relaxed) else {
                throw error
            }
            return .unread(events)
        }
    }
}
