/// What ``SharedDefaults/reload()`` found.
public enum ReloadResult: Sendable, Hashable {
    /// The file is the one read last time (same device, inode, size, times, mode and owner);
    /// nothing was decoded.
    case unchanged
    /// A different file was read, validated and decoded; it is now what the getters serve.
    case changed
    /// There is no suite file (or no preferences directory); the getters serve an empty
    /// dictionary plus registered defaults.
    case missing
}
