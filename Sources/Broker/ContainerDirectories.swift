import EntitlementDefaults
import SystemShims

/// The daemon's claim on its container: before it takes the lock or writes anything, every
/// directory of the layout is created (mode ``ContainerLayout/directoryMode``, whatever the
/// umask) or, when it already exists, verified to be a real directory owned by the daemon's
/// user that neither its group nor others may write. Anything else stops the start with one
/// line naming the directory: a directory another user owns, or may write to, lets that user
/// swap the published file (or the journal, or the inbox) for one of their choosing.
enum ContainerDirectories {
    /// The directories, outermost first: the container itself, `Library`, `Library/Preferences`,
    /// `Library/Broker` and its `inbox` and `rejected`.
    static func paths(of layout: ContainerLayout) -> [String] {
        [layout.container, layout.container + "/Library", layout.preferencesDirectory, layout.brokerDirectory,
         layout.inboxDirectory, layout.rejectedDirectory]
    }

    /// Creates or verifies every directory of `layout` for the user `owner` (the effective
    /// user by default). The container path itself may be a symbolic link (the operator chose
    /// it) and is judged by what it points to; every directory below it must be a directory,
    /// not a link.
    ///
    /// - Throws: ``BrokerError/badInput(_:)`` naming the first directory that is not the
    ///   daemon's own; ``BrokerError/io(path:operation:errno:)`` when one cannot be created.
    static func prepare(_ layout: ContainerLayout, owner: UInt32 = ProcessIdentity.effectiveUserID) throws(BrokerError) {
        for (level, path) in paths(of: layout).enumerated() {
            if level == 0 {
                // The container's own parents are the operator's business; create them as needed.
                let parent = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
                if !parent.isEmpty {
                    do { try FileSystem.makeDirectories(path: parent, mode: ContainerLayout.directoryMode) } catch {
                        throw .io(path: parent, operation: "create directory", errno: error)
                    }
                }
            }
            let created: Bool
            do { created = try FileSystem.makeDirectory(path: path, mode: ContainerLayout.directoryMode) } catch {
                throw .io(path: path, operation: "create directory", errno: error)
            }
            if created { continue }
            let status: FileStatus
            do { status = try fileStatus(atPath: path, followSymlinks: level == 0) } catch {
                throw .io(path: path, operation: "stat", errno: error)
            }
            if let problem = problem(with: status, owner: owner) {
                throw .badInput("\(path): \(problem); refusing to use this container")
            }
        }
    }

    /// What makes `status` unfit to be one of the daemon's directories, or `nil`.
    static func problem(with status: FileStatus, owner: UInt32) -> String? {
        guard status.type == .directory else {
            return status.type == .symlink ? "is a symbolic link, not a directory" : "is a \(status.type.rawValue), not a directory"
        }
        guard status.userID == owner else { return "owned by uid \(status.userID), not by the daemon's user (uid \(owner))" }
        guard status.mode & 0o022 == 0 else {
            return "mode \(String(status.permissions, radix: 8)) lets its group or others write (at most \(String(ContainerLayout.directoryMode, radix: 8)))"
        }
        return nil
    }
}
