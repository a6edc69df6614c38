import Foundation

/// A system user made for one test (no home, no login shell, a group of its own), so that a
/// process can run as someone other than root and the files' owners and modes apply to it.
public struct TemporaryUser: Sendable {
    public let name: String
    public let userID: uid_t
    public let groupID: gid_t

    /// `executable` with `arguments`, to start as this user (`setpriv`, which also drops root's
    /// supplementary groups), as an executable and arguments for a child process.
    public func command(_ executable: String, _ arguments: [String]) -> (executable: String, arguments: [String]) {
        ("/usr/bin/setpriv", ["--reuid=\(userID)", "--regid=\(groupID)", "--clear-groups", executable] + arguments)
    }

    /// Gives `path` (not what it holds) to this user and its group.
    public func own(_ path: String) throws {
        guard chown(path, userID, groupID) == 0 else {
            throw TemporaryDirectoryError(description: "chown \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Whether users can be added here: root, with `useradd`, `userdel` and `setpriv` installed.
    public static var canBeMade: Bool {
        geteuid() == 0 && ["/usr/sbin/useradd", "/usr/sbin/userdel", "/usr/bin/setpriv"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// Runs `body` with a new ``TemporaryUser`` and deletes the user (and its group) afterwards on
/// every path, even when `body` throws. Needs root (see ``TemporaryUser/canBeMade``).
public func withTemporaryUser<T>(_ body: (TemporaryUser) async throws -> T) async throws -> T {
    let name = "enttest\(UInt32.random(in: 0...UInt32.max) % 1_000_000)"
    try runAdministrationTool("/usr/sbin/useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "--user-group", name])
    defer { try? runAdministrationTool("/usr/sbin/userdel", [name]) }
    guard let entry = getpwnam(name) else { throw TemporaryDirectoryError(description: "useradd made no user \(name)") }
    return try await body(TemporaryUser(name: name, userID: entry.pointee.pw_uid, groupID: entry.pointee.pw_gid))
}

private func runAdministrationTool(_ path: String, _ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let errors = Pipe()
    process.standardError = errors
    try process.run()
    let message = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw TemporaryDirectoryError(
            description: "\(([path] + arguments).joined(separator: " ")) exited \(process.terminationStatus): \(String(decoding: message, as: UTF8.self))")
    }
}
