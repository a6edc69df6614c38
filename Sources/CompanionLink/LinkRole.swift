/// Which end of the link a side is: the phone connects (`--companion-connect`), the watch listens
/// (`--companion-listen`). The roles order the handshake transcript and name each direction's key,
/// so a side's own proof can never pass as its peer's.
public enum LinkRole: Sendable, Equatable {
    /// The side that connected.
    case initiator
    /// The side that accepted the connection.
    case responder

    /// The other end's role.
    public var peer: LinkRole { self == .initiator ? .responder : .initiator }

    /// The role's name in the labels the key schedule hashes.
    var label: String { self == .initiator ? "initiator" : "responder" }
}
