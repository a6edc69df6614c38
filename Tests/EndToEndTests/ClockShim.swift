import Foundation
import TestSupport

/// A wall clock and a boot id the test sets for the tools it starts: a tiny `LD_PRELOAD` library,
/// compiled here with the system C compiler, shifts `CLOCK_REALTIME` (and `gettimeofday`,
/// `time`) by the number of seconds written in ``offsetFile`` (read through a shared mapping,
/// so a change reaches running processes at once) and answers the kernel's boot id file with
/// ``bootIDFile``. The boot clock itself is left alone.
struct ClockShim {
    /// The C compiler, or `nil` where there is none (the tests that need it are skipped).
    static let compiler: String? = ["/usr/bin/cc", "/usr/local/bin/cc", "/usr/bin/gcc"].first { FileManager.default.isExecutableFile(atPath: $0) }

    let directory: String
    var library: String { directory + "/clockshim.so" }
    var offsetFile: String { directory + "/offset" }
    var bootIDFile: String { directory + "/boot_id" }

    /// The environment that loads the shim into a tool.
    var environment: [String: String] {
        ["LD_PRELOAD": library, "CLOCK_SHIM_OFFSET_FILE": offsetFile, "CLOCK_SHIM_BOOT_ID_FILE": bootIDFile]
    }

    /// Compiles the shim into `directory` with the clock unshifted and the machine's boot id.
    static func make(in directory: String) async throws -> ClockShim {
        let shim = ClockShim(directory: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try source.write(toFile: directory + "/clockshim.c", atomically: true, encoding: .utf8)
        let compiled = try await BuiltTools.run(
            executable: try requireCompiler(), ["-shared", "-fPIC", "-O2", "-o", shim.library, directory + "/clockshim.c", "-ldl", "-lpthread"])
        guard compiled.status == 0 else { throw FixtureError("cc could not build the clock shim: \(compiled.standardError)") }
        try Data(Self.offsetText(0).utf8).write(to: URL(fileURLWithPath: shim.offsetFile))
        try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8).write(toFile: shim.bootIDFile, atomically: true, encoding: .utf8)
        return shim
    }

    private static func requireCompiler() throws -> String {
        guard let compiler else { throw FixtureError("no C compiler") }
        return compiler
    }

    /// Shifts the wall clock of every process the shim is loaded into by `seconds` from now on.
    func setOffset(_ seconds: Int64) throws {
        // Written in place: the processes map this very file.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: offsetFile))
        defer { try? handle.close() }
        try handle.seek(toOffset: 0)
        try handle.write(contentsOf: Data(Self.offsetText(seconds).utf8))
    }

    /// A new boot id for the processes started from now on (each reads it once): a reboot, as
    /// far as the floors of the daemon and its readers can tell.
    func reboot() throws {
        try (UUID().uuidString.lowercased() + "\n").write(toFile: bootIDFile, atomically: true, encoding: .utf8)
    }

    /// `seconds` as the shim reads it: decimal, padded with spaces to its 32 bytes.
    private static func offsetText(_ seconds: Int64) -> String {
        let text = String(seconds)
        return text + String(repeating: " ", count: 32 - text.count)
    }

    static let source = #"""
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <fcntl.h>
        #include <pthread.h>
        #include <stdarg.h>
        #include <stdlib.h>
        #include <string.h>
        #include <sys/mman.h>
        #include <sys/syscall.h>
        #include <sys/time.h>
        #include <time.h>
        #include <unistd.h>

        static int (*real_clock_gettime)(clockid_t, struct timespec *);
        static const volatile char *offset_text;
        static pthread_once_t once = PTHREAD_ONCE_INIT;

        static void initialize(void) {
            real_clock_gettime = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
            const char *path = getenv("CLOCK_SHIM_OFFSET_FILE");
            if (!path) return;
            int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
            if (fd < 0) return;
            void *mapped = mmap(NULL, 32, PROT_READ, MAP_SHARED, fd, 0);
            if (mapped != MAP_FAILED) offset_text = mapped;
            close(fd);
        }

        static long long offset_seconds(void) {
            pthread_once(&once, initialize);
            if (!offset_text) return 0;
            long long value = 0;
            int i = 0, negative = 0;
            while (i < 32 && offset_text[i] == ' ') i++;
            if (i < 32 && offset_text[i] == '-') { negative = 1; i++; }
            for (; i < 32 && offset_text[i] >= '0' && offset_text[i] <= '9'; i++) value = value * 10 + (offset_text[i] - '0');
            return negative ? -value : value;
        }

        int clock_gettime(clockid_t clock, struct timespec *now) {
            pthread_once(&once, initialize);
            int result = real_clock_gettime(clock, now);
            if (result == 0 && (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE)) now->tv_sec += offset_seconds();
            return result;
        }

        int gettimeofday(struct timeval *restrict now, void *restrict zone) {
            struct timespec precise;
            (void)zone;
            if (clock_gettime(CLOCK_REALTIME, &precise) != 0) return -1;
            now->tv_sec = precise.tv_sec;
            now->tv_usec = precise.tv_nsec / 1000;
            return 0;
        }

        time_t time(time_t *out) {
            struct timespec precise;
            clock_gettime(CLOCK_REALTIME, &precise);
            if (out) *out = precise.tv_sec;
            return precise.tv_sec;
        }

        static const char *redirected(const char *path) {
            const char *boot = getenv("CLOCK_SHIM_BOOT_ID_FILE");
            if (boot && path && strcmp(path, "/proc/sys/kernel/random/boot_id") == 0) return boot;
            return path;
        }

        #define OPEN_MODE(flags) \
            mode_t mode = 0; \
            if ((flags) & (O_CREAT | O_TMPFILE)) { va_list arguments; va_start(arguments, flags); mode = (mode_t)va_arg(arguments, int); va_end(arguments); }

        int openat(int directory, const char *path, int flags, ...) {
            OPEN_MODE(flags)
            return (int)syscall(SYS_openat, directory, redirected(path), flags, mode);
        }

        int openat64(int directory, const char *path, int flags, ...) {
            OPEN_MODE(flags)
            return (int)syscall(SYS_openat, directory, redirected(path), flags, mode);
        }

        int open(const char *path, int flags, ...) {
            OPEN_MODE(flags)
            return (int)syscall(SYS_openat, AT_FDCWD, redirected(path), flags, mode);
        }

        int open64(const char *path, int flags, ...) {
            OPEN_MODE(flags)
            return (int)syscall(SYS_openat, AT_FDCWD, redirected(path), flags, mode);
        }
        """#
}
