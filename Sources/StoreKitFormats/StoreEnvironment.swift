/// The App Store environment data comes from, spelled as Apple spells it in transactions
/// (`Production`, `Sandbox`, `Xcode`, `LocalTesting`).
///
/// Decoding events is lenient (an unknown spelling is kept in ``unknown(_:)``); a catalog must name
/// one of the four known environments, and events from any other environment are refused.
public enum StoreEnvironment: RawRepresentable, Sendable, Hashable, CustomStringConvertible, KnownValues {
    /// Live App Store data.
    case production
    /// Apple's sandbox, for testers.
    case sandbox
    /// StoreKit Testing in Xcode, signed by Xcode's own certificate.
    case xcode
    /// Local StoreKit testing outside Xcode.
    case localTesting
    /// Any other spelling, kept as written; a catalog never names one, so such data is refused.
    case unknown(String)

    /// The environment spelled `rawValue`; an unknown spelling becomes ``unknown(_:)``.
    public init(rawValue: String) {
        self = Self.known.first { $0.rawValue == rawValue } ?? .unknown(rawValue)
    }

    /// The spelling Apple writes (`Production`, `Sandbox`, `Xcode`, `LocalTesting`, or the unknown one).
    public var rawValue: String {
        switch self {
        case .production: "Production"
        case .sandbox: "Sandbox"
        case .xcode: "Xcode"
        case .localTesting: "LocalTesting"
        case .unknown(let raw): raw
        }
    }

    public var description: String { rawValue }

    /// The four environments a catalog may name.
    public static let known: [StoreEnvironment] = [.production, .sandbox, .xcode, .localTesting]
}
