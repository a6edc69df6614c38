/// Secret bytes (a key) in memory this object owns, of a fixed size, overwritten with zeros when
/// the last reference to it goes (see ``Zeroization`` for what that does and does not reach).
///
/// The bytes are never copied out by this type; callers read them inside ``withUnsafeBytes(_:)``.
/// It is immutable after initialisation, so it may be shared between tasks.
public final class SecretBytes: @unchecked Sendable {
    private let storage: UnsafeMutableRawBufferPointer

    /// A copy of `bytes`. The caller still owns `bytes` and should zero them if they are secret
    /// (or use ``init(taking:)``).
    public init(_ bytes: some Collection<UInt8>) {
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 16)
        storage.copyBytes(from: bytes)
    }

    /// The bytes of `bytes`, which are then overwritten with zeros in place, so the secret lives
    /// on only here.
    public convenience init(taking bytes: inout [UInt8]) {
        self.init(bytes)
        Zeroization.overwrite(&bytes)
    }

    /// How many bytes the secret has.
    public var count: Int { storage.count }

    /// Calls `body` with the bytes. The pointer is valid only during the call; do not keep it or
    /// copy the bytes into storage that is not zeroed afterwards.
    public func withUnsafeBytes<Result, Failure: Error>(_ body: (UnsafeRawBufferPointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try body(UnsafeRawBufferPointer(storage))
    }

    deinit {
        Zeroization.overwrite(storage)
        storage.deallocate()
    }
}
