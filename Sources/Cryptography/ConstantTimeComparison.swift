/// Equality of secret byte strings (authentication tags, key proofs) in time that depends only on
/// their lengths, never on where they first differ: an early exit would tell an attacker who times
/// the answer how many leading bytes of a forged tag were right.
public enum ConstantTimeComparison {
    /// Whether `lhs` and `rhs` hold the same bytes. Lengths are not secret (a tag's length is
    /// public), so different lengths answer false at once; equal lengths are compared in full,
    /// OR-ing every byte's difference, with one test at the end.
    public static func equal(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return withContiguousBytes(lhs) { left in
            withContiguousBytes(rhs) { right in
                var difference: UInt8 = 0
                for index in 0..<left.count { difference |= left[index] ^ right[index] }
                return difference == 0
            }
        }
    }
}
