import Glibc
import SystemShims
import TestSupport
import Testing

@Suite("Temporary directories", .timeLimit(.minutes(1)))
struct TemporaryDirectoryTests {
    @Test("A new directory with the prefix, mode 0700, a different one each time; a missing parent is ENOENT")
    func makeTemporaryDirectory() throws {
        try withTemporaryDirectory { directory in
            let first = try FileSystem.makeTemporaryDirectory(in: directory, prefix: "demo")
            let second = try FileSystem.makeTemporaryDirectory(in: directory, prefix: "demo")
            #expect(first != second)
            for path in [first, second] {
                #expect(path.hasPrefix(directory + "/demo."))
                #expect(path.count == (directory + "/demo.XXXXXX").count)
                let status = try fileStatus(atPath: path)
                #expect(status.type == .directory && status.permissions == 0o700)
            }
            #expect(throws: Errno.noSuchFileOrDirectory) {
                _ = try FileSystem.makeTemporaryDirectory(in: directory + "/missing", prefix: "demo")
            }
        }
    }
}

@Suite("Splitting a path")
struct DirectoryAndNameTests {
    @Test("The directory before the last slash and the name after it: '.' without a slash, '/' at the root")
    func directoryAndName() {
        #expect(FileSystem.directoryAndName(of: "/var/lib/broker/journal") == ("/var/lib/broker", "journal"))
        #expect(FileSystem.directoryAndName(of: "relative/state.json") == ("relative", "state.json"))
        #expect(FileSystem.directoryAndName(of: "state.json") == (".", "state.json"))
        #expect(FileSystem.directoryAndName(of: "/state.json") == ("/", "state.json"))
    }
}

@Suite("Finding a byte in memory")
struct ByteSearchTests {
    @Test(
        "The first index of the byte at or after the start, nil when there is none",
        arguments: [
            ("a\nb\n", 0, 1), ("a\nb\n", 1, 1), ("a\nb\n", 2, 3), ("a\nb\n", 4, nil), ("abc", 0, nil), ("", 0, nil),
            ("\n", 0, 0), ("a\n", 5, nil), ("a\n", -1, nil),
        ] as [(String, Int, Int?)])
    func firstNewline(text: String, start: Int, expected: Int?) {
        let found = Array(text.utf8).withUnsafeBufferPointer { ByteSearch.firstIndex(of: 0x0A, in: $0, from: start) }
        #expect(found == expected)
    }
}

@Suite("File existence and the process environment", .timeLimit(.minutes(1)))
struct ExistenceAndEnvironmentTests {
    @Test("exists follows symbolic links, as FileManager.fileExists: a file, a directory and a link to either exist; a dangling link and a missing path do not")
    func exists() throws {
        try withTemporaryDirectory { directory in
            let file = directory + "/file", missing = directory + "/missing"
            try FileDescriptor.open(file, .writeOnly, options: [.create, .exclusiveCreate, .closeOnExec]).close()
            try FileSystem.makeSymbolicLink(at: directory + "/to-file", to: file)
            try FileSystem.makeSymbolicLink(at: directory + "/to-directory", to: directory)
            try FileSystem.makeSymbolicLink(at: directory + "/dangling", to: missing)
            for path in [file, directory, directory + "/to-file", directory + "/to-directory"] { #expect(FileSystem.exists(atPath: path), "\(path)") }
            for path in [missing, directory + "/dangling", file + "/below-a-file"] { #expect(!FileSystem.exists(atPath: path), "\(path)") }
        }
    }

    @Test("ProcessEnvironment.current is what getenv finds, for every name in environ")
    func environment() {
        let variables = ProcessEnvironment.current
        #expect(!variables.isEmpty)
        for (name, value) in variables { #expect(String(validatingCString: getenv(name)) == value, "\(name)") }
        #expect(variables["ENTITLEMENT_TEST_SURELY_UNSET_\(getpid())"] == nil)
    }

    @Test("ProcessEnvironment.value(of:) is what current holds, name by name")
    func environmentByName() {
        let variables = ProcessEnvironment.current
        for (name, value) in variables { #expect(ProcessEnvironment.value(of: name) == value, "\(name)") }
        #expect(ProcessEnvironment.value(of: "ENTITLEMENT_TEST_SURELY_UNSET_\(getpid())") == nil)
    }
}
