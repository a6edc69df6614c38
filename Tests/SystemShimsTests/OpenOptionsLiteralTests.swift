import Glibc
import SystemShims
import Testing

@Suite("FileDescriptor.OpenOptions literals")
struct OpenOptionsLiteralTests {
    @Test("A literal is the union of its flags, as the standard library's init builds it")
    func literalIsUnion() {
        let options: FileDescriptor.OpenOptions = [.directory, .noFollow, .closeOnExec]
        #expect(options.rawValue == O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        let repeated: FileDescriptor.OpenOptions = [.closeOnExec, .closeOnExec, .nonBlocking]
        #expect(repeated == FileDescriptor.OpenOptions.closeOnExec.union(.nonBlocking))
        let empty: FileDescriptor.OpenOptions = []
        #expect(empty.rawValue == 0 && empty == FileDescriptor.OpenOptions())
    }
}
