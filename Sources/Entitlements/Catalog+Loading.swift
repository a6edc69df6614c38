extension Catalog {
    /// Decodes the catalog whose `Catalog.json` is at `path`, with the files it names: the
    /// `.storekit` file (relative to the catalog's directory), the certificate files its
    /// `trustedRoots` names and the public key files its `grantKeys` names, each obtained from
    /// `bytes`, then decoded with `init(catalogJSON:storeKitJSON:catalogPath:trustedRootFiles:)`.
    /// This module reads no file itself: the caller's `bytes` does (`Catalog.load(path:)` of
    /// `EntitlementDefaults` passes the file system's reader). `Catalog.json` is parsed once.
    ///
    /// - Parameters:
    ///   - path: where `Catalog.json` is; the other files are named relative to its directory.
    ///   - bytes: the bytes of the file at a path, or a ``CatalogError`` naming it.
    /// - Throws: ``CatalogError`` naming the file that is missing, unreadable or malformed (a
    ///   trusted root that is missing or malformed names the catalog and its `trustedRoots`
    ///   entry); a read that failed carries its ``CatalogError/systemError``.
    public static func load(path: String, bytes: (String) throws(CatalogError) -> [UInt8]) throws(CatalogError) -> Catalog {
        let root = try parse(try bytes(path), file: path)
        let storeKitJSON = try bytes(resolve(try storeKitPath(in: root, catalogPath: path), relativeTo: path))
        var files: [String: [UInt8]] = [:]
        for file in try namedFiles(in: root, catalogPath: path) {
            // A file that is missing or refused is named by the decoding below; one that could
            // not be read (a failing system call) is that failure, not a bad catalog.
            do throws(CatalogError) { files[file] = try bytes(file) } catch {
                if error.systemError != nil { throw error }
            }
        }
        return try Catalog(catalogRoot: root, storeKitJSON: storeKitJSON, catalogPath: path, trustedRootFiles: files)
    }
}
