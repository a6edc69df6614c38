/// The version every tool of the package prints for `--version`: the one place it is written.
package enum ToolVersion {
    package static let current = "1.0.0"
}
