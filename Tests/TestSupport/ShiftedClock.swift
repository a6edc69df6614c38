import Foundation

/// A wall clock that runs ahead for the child processes started with its ``environment``, by the
/// amount the test sets at any moment (``set(offset:)``), while the machine's clock is untouched.
///
/// The children preload (`LD_PRELOAD`) a small library built here from C with the system's
/// compiler: its `clock_gettime` adds the offset to `CLOCK_REALTIME` and `CLOCK_REALTIME_COARSE`
/// (what `Date()` and the package's clocks read) and to `CLOCK_BOOTTIME`, so the time passes
/// as if the machine had slept through it and a daemon that checks the wall clock against the
/// boot clock believes it; the monotonic clock (what waits are timed by) is left alone;
/// its `sem_timedwait` takes the absolute wall-clock deadlines libdispatch computes from the
/// shifted clock back to the real one, which the kernel checks them against.
/// The offset lives in an 8-byte file the library maps shared, so a change is seen at once,
/// without a system call per reading.
public final class ShiftedClock: Sendable {
    /// The file holding the offset in nanoseconds (a little-endian `Int64`).
    public let offsetFile: String

    /// The variables to start a child with so that its wall clock is this one.
    public var environment: [String: String] {
        ["LD_PRELOAD": Self.library ?? "", "SHIFTED_CLOCK_OFFSET_FILE": offsetFile]
    }

    /// Whether the library could be built (a C compiler is installed).
    public static var isAvailable: Bool { library != nil }

    /// A clock with no offset yet, its offset file in `directory`.
    public init(directory: String) throws {
        offsetFile = directory + "/shifted-clock-offset"
        try set(offset: 0)
    }

    /// Sets how many seconds ahead of the machine's wall clock the children's runs.
    public func set(offset seconds: Double) throws {
        var nanoseconds = Int64(seconds * 1e9).littleEndian
        let fd = open(offsetFile, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw TemporaryDirectoryError(description: "\(offsetFile): open: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard pwrite(fd, &nanoseconds, 8, 0) == 8 else {
            throw TemporaryDirectoryError(description: "\(offsetFile): write: \(String(cString: strerror(errno)))")
        }
    }

    /// The built library's path, built once per test process; `nil` without a C compiler.
    static let library: String? = {
        let compilers = ["/usr/bin/cc", "/usr/bin/clang", "/usr/bin/gcc"]
        guard let compiler = compilers.first(where: FileManager.default.isExecutableFile(atPath:)) else { return nil }
        let directory = NSTemporaryDirectory() + "shifted-clock-\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let source = directory + "/shifted-clock.c"
        let library = directory + "/libshifted-clock.so"
        guard (try? Data(ShiftedClock.source.utf8).write(to: URL(fileURLWithPath: source))) != nil else { return nil }
        let build = Process()
        build.executableURL = URL(fileURLWithPath: compiler)
        build.arguments = ["-shared", "-fPIC", "-O2", "-o", library, source, "-ldl"]
        guard (try? build.run()) != nil else { return nil }
        build.waitUntilExit()
        return build.terminationStatus == 0 ? library : nil
    }()

    private static let source = """
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <fcntl.h>
        #include <stdint.h>
        #include <semaphore.h>
        #include <stdlib.h>
        #include <sys/mman.h>
        #include <time.h>
        #include <unistd.h>

        /* Nanoseconds to add to the wall clock, shared with the test that sets them. */
        static const volatile int64_t *offset;
        static int (*real_clock_gettime)(clockid_t, struct timespec *);

        __attribute__((constructor)) static void shifted_clock_start(void) {
            real_clock_gettime = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
            const char *path = getenv("SHIFTED_CLOCK_OFFSET_FILE");
            if (path == NULL) return;
            int fd = open(path, O_RDONLY | O_CLOEXEC);
            if (fd < 0) return;
            void *map = mmap(NULL, sizeof(int64_t), PROT_READ, MAP_SHARED, fd, 0);
            close(fd);
            if (map != MAP_FAILED) offset = (const volatile int64_t *)map;
        }

        int clock_gettime(clockid_t clock, struct timespec *time) {
            if (real_clock_gettime == NULL)
                real_clock_gettime = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
            int result = real_clock_gettime(clock, time);
            if (result == 0 && offset != NULL && (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE || clock == CLOCK_BOOTTIME)) {
                int64_t nanoseconds = (int64_t)time->tv_sec * 1000000000 + time->tv_nsec + __atomic_load_n(offset, __ATOMIC_RELAXED);
                time->tv_sec = nanoseconds / 1000000000;
                time->tv_nsec = nanoseconds % 1000000000;
            }
            return result;
        }

        /* An absolute deadline the kernel checks against its own wall clock (libdispatch's
           semaphores wait this way): taken back to the real clock's reading of it. */
        int sem_timedwait(sem_t *restrict semaphore, const struct timespec *restrict deadline) {
            static int (*real_sem_timedwait)(sem_t *, const struct timespec *);
            if (real_sem_timedwait == NULL)
                real_sem_timedwait = (int (*)(sem_t *, const struct timespec *))dlsym(RTLD_NEXT, "sem_timedwait");
            if (offset == NULL || deadline == NULL) return real_sem_timedwait(semaphore, deadline);
            int64_t nanoseconds = (int64_t)deadline->tv_sec * 1000000000 + deadline->tv_nsec - __atomic_load_n(offset, __ATOMIC_RELAXED);
            if (nanoseconds < 0) nanoseconds = 0;
            struct timespec real_deadline = { .tv_sec = nanoseconds / 1000000000, .tv_nsec = nanoseconds % 1000000000 };
            return real_sem_timedwait(semaphore, &real_deadline);
        }
        """
}
