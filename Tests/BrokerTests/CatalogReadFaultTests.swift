#if ENABLE_MOCKING
@testable import Broker
import Entitlements
import Foundation
import SystemShims
import Testing

/// A catalog that cannot be read (a failing system call) is a temporary failure naming its
/// cause, never bad data: the exit code 65 is for a catalog whose contents are refused.
@Suite("Catalog read faults", .timeLimit(.minutes(1)))
struct CatalogReadFaultTests {
    @Test("EMFILE opening Catalog.json or its .storekit file is reported as EMFILE with exit 75, not as a bad catalog (65)",
          arguments: [0, 1])
    func descriptorShortageIsNotBadData(opensBefore: Int) throws {
        let faults = SyscallFaults()
        faults.inject(.fail(.tooManyOpenFiles), into: .open, after: opensBefore)
        let catalogError = #expect(throws: CatalogError.self) {
            try faults.withFaults { () throws(CatalogError) in _ = try Catalog.load(path: DaemonCoreTests.catalog) }
        }
        #expect(catalogError?.systemError == Errno.tooManyOpenFiles.rawValue)
        #expect(catalogError?.description.contains("EMFILE") == true, "\(String(describing: catalogError))")

        let retry = SyscallFaults()
        retry.inject(.fail(.tooManyOpenFiles), into: .open, after: opensBefore)
        let brokerError = #expect(throws: BrokerError.self) {
            try retry.withFaults { () throws(BrokerError) in _ = try DaemonCore.loadCatalog(DaemonCoreTests.catalog) }
        }
        #expect(brokerError?.exitCode == 75, "\(String(describing: brokerError))")
        #expect(brokerError?.description.contains("EMFILE") == true, "\(String(describing: brokerError))")
    }

    @Test("A catalog refused for its contents is still bad data (65)")
    func badContentsAreBadData() throws {
        let directory = NSTemporaryDirectory() + "catalog-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data("{\"storekit\": 3}".utf8).write(to: URL(fileURLWithPath: directory + "/Catalog.json"))
        let error = #expect(throws: BrokerError.self) { _ = try DaemonCore.loadCatalog(directory + "/Catalog.json") }
        #expect(error?.exitCode == 65, "\(String(describing: error))")
    }
}
#endif
