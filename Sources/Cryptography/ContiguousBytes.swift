/// Calls `body` with the bytes of `bytes` as one buffer: in place when the collection stores them
/// contiguously (arrays, array slices), otherwise from a temporary copy, zeroed afterwards since
/// the bytes may be a secret.
func withContiguousBytes<Result>(_ bytes: some Collection<UInt8>, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
    if let result = bytes.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) { return result }
    var copy = Array(bytes)
    defer { Zeroization.overwrite(&copy) }
    return copy.withUnsafeBytes(body)
}
