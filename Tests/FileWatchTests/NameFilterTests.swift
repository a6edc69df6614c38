@testable import FileWatch
import Testing

/// A set-based ``NameFilter`` matches the kernel's name bytes in place, and a reported name is the
/// set's own string, with the set of it alone ready for ``PendingChanges``.
@Suite struct NameFilterTests {
    /// Calls `body` with an event for `name`'s UTF-8 followed by the kernel's NUL padding.
    private func withEvent<Result>(named name: [UInt8], _ body: (InotifyEvent) -> Result) -> Result {
        let padded = name + [0, 0, 0, 0]
        return padded.withUnsafeBytes { bytes in
            body(
                InotifyEvent(
                    watchDescriptor: 1, mask: .movedTo, cookie: 0,
                    nameBytes: UnsafeRawBufferPointer(rebasing: bytes[..<name.count])))
        }
    }

    @Test("Each listed name is found among names of the same and other lengths, and nothing else is")
    func findsEveryListedName() {
        let names: Set<String> = ["a", "b", "ab", "ba", "abc", "group.plist", "other.plist", "state.plist", "é.plist"]
        let filter = NameFilter(names: names)
        for name in names {
            let reported = withEvent(named: Array(name.utf8)) { filter.reported($0) }
            #expect(reported?.name == name)
            #expect(reported?.alone == [name])
        }
        for stranger in ["", "c", "abd", "group.plis", "group.plistx", ".group.plist.tmp-1-2", "A"] {
            #expect(withEvent(named: Array(stranger.utf8)) { filter.reported($0) } == nil, "\(stranger)")
        }
    }

    @Test("Names are told apart byte for byte, as the file system does: another normalization is another file")
    func matchesBytesNotCanonicalEquivalence() {
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        #expect(composed == decomposed, "Swift strings compare canonically")
        let filter = NameFilter(names: [composed])
        #expect(withEvent(named: Array(decomposed.utf8)) { filter.reported($0) } == nil)
        #expect(withEvent(named: Array(composed.utf8)) { filter.reported($0) }?.name == composed)
    }

    @Test("Every name, or a predicate: the event's name made into a string, with no set ready")
    func everyNameAndPredicate() {
        let every = NameFilter(names: nil)
        let reported = withEvent(named: Array("x.tmp".utf8)) { every.reported($0) }
        #expect(reported?.name == "x.tmp")
        #expect(reported?.alone == nil)
        let predicate = NameFilter({ !$0.hasSuffix(".tmp") }, arrivalsOnly: false)
        #expect(withEvent(named: Array("x.tmp".utf8)) { predicate.reported($0) } == nil)
        #expect(withEvent(named: Array("x".utf8)) { predicate.reported($0) }?.name == "x")
    }
}
