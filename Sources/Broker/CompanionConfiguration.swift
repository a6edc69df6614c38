import EntitlementDefaults
import SystemShims

/// How a daemon takes part in the companion link: which end it is, where, and with which key.
public struct CompanionConfiguration: Sendable {
    /// `--companion-listen` (the watch) or `--companion-connect` (the phone).
    public enum Endpoint: Sendable, Equatable {
        /// Accept the phone's connections at `[HOST:]PORT` (the watch).
        case listen(String)
        /// Keep a connection to the watch at `HOST:PORT` (the phone).
        case connect(String)
    }

    /// Which end this daemon is, and its address as given on the command line.
    public var endpoint: Endpoint
    /// The `--pairing-key` file.
    public var pairingKeyPath: String

    /// A link configuration; nothing is checked until the daemon starts (the address by
    /// ``address()``, the key by ``PairingKeyFile``).
    public init(endpoint: Endpoint, pairingKeyPath: String) {
        self.endpoint = endpoint
        self.pairingKeyPath = pairingKeyPath
    }

    /// The address to listen on or connect to: `[HOST:]PORT` for listening (HOST defaults to
    /// 127.0.0.1), `HOST:PORT` for connecting; HOST an IPv4 address or `localhost`.
    /// - Throws: ``BrokerError/badInput(_:)`` naming the flag and the text.
    package func address() throws(BrokerError) -> TCPSocket.Address {
        switch endpoint {
        case .listen(let text):
            guard let address = TCPSocket.Address(parsing: text, defaultHost: "127.0.0.1") else {
                throw .badInput("--companion-listen: '\(text)' is not [HOST:]PORT with HOST an IPv4 address")
            }
            return address
        case .connect(let text):
            guard let address = TCPSocket.Address(parsing: text) else {
                throw .badInput("--companion-connect: '\(text)' is not HOST:PORT with HOST an IPv4 address")
            }
            return address
        }
    }
}

extension ContainerLayout {
    /// The events this side offers its companion, in order (``CompanionOutbox``).
    package var companionOutboxPath: String { brokerDirectory + "/companion-outbox" }
    /// How far each direction of the link got (``CompanionPositions``).
    package var companionPositionsPath: String { brokerDirectory + "/companion-positions.json" }
    /// What `entitlementctl companion` prints (``CompanionStatus``).
    package var companionStatusPath: String { brokerDirectory + "/companion-status.json" }
}
