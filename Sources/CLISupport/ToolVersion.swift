/// The version every tool of the package prints for `--version`: the one place it is written.
public enum ToolVersion {
    public static let current = "1.0.0"
}
