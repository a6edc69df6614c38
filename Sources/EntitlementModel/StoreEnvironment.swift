/// The App Store environment data comes from, spelled as Apple spells it in transactions
/// (`Production`, `Sandbox`, `Xcode`, `LocalTesting`).
///
/// Decoding events is lenient (an unknown spelling is kept in ``unknown(_:)``); a catalog must name
/// one of the four known environments, and events from any other environment are refused.
public enum StoreEnvironment: Sendable, Hashable, CustomStringConvertible {
    case production
    case sandbox
    case xcode
    case localTesting
    case unknown(String)

    public init(rawValue: String) {
        switch rawValue {
        case "Production": self = .production
        case "Sandbox": self = .sandbox
        case "Xcode": self = .xcode
        case "LocalTesting": self = .localTesting
        default: self = .unknown(rawValue)
        }
    }

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
