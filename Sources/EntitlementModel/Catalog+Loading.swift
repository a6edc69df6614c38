#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Catalog {
    /// Decodes the catalog whose `Catalog.json` is at `path`, with the files it names: the
    /// `.storekit` file (relative to the catalog's directory), the certificate files its
    /// `trustedRoots` names and the public key files its `grantKeys` names, each obtained from `contents`, then decoded with
    /// `init(catalogJSON:storeKitJSON:catalogPath:trustedRootFiles:)`. This module reads no
    /// file itself: the caller's `contents` does (the tools pass the file system's reader).
    ///
    /// - Parameters:
    ///   - path: where `Catalog.json` is; the other files are named relative to its directory.
    ///   - contents: the bytes of the file at a path, or a ``CatalogError`` naming it.
    /// - Throws: ``CatalogError`` naming the file that is missing, unreadable or malformed (a
    ///   trusted root that is missing or malformed names the catalog and its `trustedRoots`
    ///   entry); a read that failed carries its ``CatalogError/systemError``.
    @_alwaysEmitIntoClient
    public static func load(path: String, contents: (String) throws(CatalogError) -> Data) throws(CatalogError) -> Catalog {
        try load(path: path, bytes: { (file) throws(CatalogError) in Array(try contents(file)) })
    }

    /// ``load(path:contents:)`` with a reader that returns byte arrays, the form the tools read
    /// files in (so the catalog code uses no `Data`). `Catalog.json` is parsed once.
    public static func load(path: String, bytes: (String) throws(CatalogError) -> [UInt8]) throws(CatalogError) -> Catalog {
        let catalogJSON = try bytes(path)
        let root = try parse(catalogJSON, file: path)
        let storeKitJSON = try bytes(try resolvedStoreKitPath(in: root, catalogPath: path))
        var rootFiles: [String: [UInt8]] = [:]
        for file in try trustedRootPaths(in: root, catalogPath: path) + grantKeyPaths(in: root, catalogPath: path) {
            // A root that is missing or refused is named by the decoding below; one that could
            // not be read (a failing system call) is that failure, not a bad catalog.
            do throws(CatalogError) { rootFiles[file] = try bytes(file) } catch {
                if error.systemError != nil { throw error }
            }
        }
        return try Catalog(catalogRoot: root, storeKitJSON: storeKitJSON, catalogPath: path, trustedRootFiles: rootFiles)
    }
}
