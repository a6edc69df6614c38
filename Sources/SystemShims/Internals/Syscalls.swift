import Glibc

// The system calls that tests can fail on purpose. Each forwards to the C library; in builds
// with `ENABLE_MOCKING` (debug) it first asks the current task's ``SyscallFaults``. Release builds
// compile to the bare C call.

#if ENABLE_MOCKING
/// Applies the current task's fault for `call`, if any: `-1` with `errno` set for a failure,
/// `nil` to run the call (with ``SyscallFaults/Fault/shortTransfer(maximumBytes:)`` applied to
/// `count`).
@inline(never)
private func forcedResult(_ call: SyscallFaults.Call, count: inout Int) -> Int? {
    guard let faults = SyscallFaults.current, let fault = faults.fault(for: call) else { return nil }
    switch fault {
    case .fail(let error):
        errno = error.rawValue
        return -1
    case .shortTransfer(let maximum):
        count = min(count, maximum)
        return nil
    }
}

@inline(__always)
private func forcedFailure(_ call: SyscallFaults.Call) -> CInt? {
    var ignored = 0
    return forcedResult(call, count: &ignored).map { CInt($0) }
}
#endif

@inline(__always)
func system_openat(_ directory: CInt, _ path: UnsafePointer<CChar>, _ flags: CInt, _ mode: mode_t) -> CInt {
    #if ENABLE_MOCKING
    if let forced = forcedFailure(.open) { return forced }
    #endif
    return Glibc.openat(directory, path, flags, mode)
}

@inline(__always)
func system_read(_ fd: CInt, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    var count = count
    #if ENABLE_MOCKING
    if let forced = forcedResult(.read, count: &count) { return forced }
    #endif
    return Glibc.read(fd, buffer, count)
}

@inline(__always)
func system_write(_ fd: CInt, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    var count = count
    #if ENABLE_MOCKING
    if let forced = forcedResult(.write, count: &count) { return forced }
    #endif
    return Glibc.write(fd, buffer, count)
}

@inline(__always)
func system_close(_ fd: CInt) -> CInt {
    Glibc.close(fd)
}

@inline(__always)
func system_fsync(_ fd: CInt) -> CInt {
    #if ENABLE_MOCKING
    if let forced = forcedFailure(.fsync) { return forced }
    #endif
    return Glibc.fsync(fd)
}

@inline(__always)
func system_ftruncate(_ fd: CInt, _ length: off_t) -> CInt {
    #if ENABLE_MOCKING
    if let forced = forcedFailure(.ftruncate) { return forced }
    #endif
    return Glibc.ftruncate(fd, length)
}

@inline(__always)
func system_lseek(_ fd: CInt, _ offset: off_t, _ whence: CInt) -> off_t {
    #if ENABLE_MOCKING
    if let forced = forcedFailure(.lseek) { return off_t(forced) }
    #endif
    return Glibc.lseek(fd, offset, whence)
}

@inline(__always)
func system_fchmod(_ fd: CInt, _ mode: mode_t) -> CInt {
    #if ENABLE_MOCKING
    if let forced = forcedFailure(.fchmod) { return forced }
    #endif
    return Glibc.fchmod(fd, mode)
}

@inline(__always)
func system_fstat(_ fd: CInt, _ buffer: inout stat) -> CInt {
    #if ENABLE_MOCKING
    if let forced = forcedFailure(.fstat) { return forced }
    #endif
    return Glibc.fstat(fd, &buffer)
}

@inline(__always)
func system_fstatat(_ fd: CInt, _ name: UnsafePointer<CChar>, _ buffer: inout stat, _ flags: CInt) -> CInt {
    #if ENABLE_MOCKING
    if let forced = forcedFailure(.fstatat) { return forced }
    #endif
    return Glibc.fstatat(fd, name, &buffer, flags)
}

@inline(__always)
func system_renameat(_ fromDirectory: CInt, _ from: String, _ toDirectory: CInt, _ to: String) -> CInt {
    #if ENABLE_MOCKING
    if let forced = forcedFailure(.renameat) { return forced }
    #endif
    return Glibc.renameat(fromDirectory, from, toDirectory, to)
}

@inline(__always)
func system_unlinkat(_ directory: CInt, _ name: String, _ flags: CInt) -> CInt {
    #if ENABLE_MOCKING
    if let forced = forcedFailure(.unlinkat) { return forced }
    #endif
    return Glibc.unlinkat(directory, name, flags)
}

@inline(__always)
func system_flock(_ fd: CInt, _ operation: CInt) -> CInt {
    #if ENABLE_MOCKING
    if let forced = forcedFailure(.flock) { return forced }
    #endif
    return flock(fd, operation) as CInt
}

@inline(__always)
func system_poll(_ descriptors: UnsafeMutablePointer<pollfd>, _ count: nfds_t, _ timeout: CInt) -> CInt {
    #if ENABLE_MOCKING
    if let forced = forcedFailure(.poll) { return forced }
    #endif
    return Glibc.poll(descriptors, count, timeout)
}

@inline(__always)
func system_inotify_init1(_ flags: CInt) -> CInt {
    #if ENABLE_MOCKING
    if let forced = forcedFailure(.inotifyInit) { return forced }
    #endif
    return Glibc.inotify_init1(flags)
}

@inline(__always)
func system_inotify_add_watch(_ fd: CInt, _ path: String, _ mask: UInt32) -> CInt {
    #if ENABLE_MOCKING
    if let forced = forcedFailure(.inotifyAddWatch) { return forced }
    #endif
    return Glibc.inotify_add_watch(fd, path, mask)
}

@inline(__always)
func system_mkdirat(_ directory: CInt, _ name: String, _ mode: mode_t) -> CInt {
    #if ENABLE_MOCKING
    if let forced = forcedFailure(.mkdirat) { return forced }
    #endif
    return Glibc.mkdirat(directory, name, mode)
}

/// `pipe2`, a GNU extension that Glibc's module map does not export, resolved once.
private let pipe2Function = cLibraryFunction(
    named: "pipe2", as: (@convention(c) (UnsafeMutablePointer<CInt>, CInt) -> CInt).self)

@inline(__always)
func system_pipe2(_ ends: UnsafeMutablePointer<CInt>, _ flags: CInt) -> CInt {
    #if ENABLE_MOCKING
    if let forced = forcedFailure(.pipe) { return forced }
    #endif
    guard let pipe2 = pipe2Function else {
        errno = ENOSYS
        return -1
    }
    return pipe2(ends, flags)
}

@inline(__always)
func system_waitpid(_ process: pid_t, _ status: inout CInt, _ options: CInt) -> pid_t {
    #if ENABLE_MOCKING
    if let forced = forcedFailure(.waitpid) { return forced }
    #endif
    return Glibc.waitpid(process, &status, options)
}

@inline(__always)
func system_getrlimit(_ resource: __rlimit_resource_t, _ limit: UnsafeMutablePointer<rlimit>) -> CInt {
    getrlimit(resource, limit)
}

@inline(__always)
func system_setrlimit(_ resource: __rlimit_resource_t, _ limit: UnsafePointer<rlimit>) -> CInt {
    setrlimit(resource, limit)
}

@inline(__always)
func system_socket(_ domain: CInt, _ type: CInt, _ protocolNumber: CInt) -> CInt {
    #if ENABLE_MOCKING
    if let forced = forcedFailure(.socket) { return forced }
    #endif
    return Glibc.socket(domain, type, protocolNumber)
}

@inline(__always)
func system_setsockopt(_ fd: CInt, _ level: CInt, _ name: CInt, _ value: UnsafeRawPointer, _ length: socklen_t) -> CInt {
    #if ENABLE_MOCKING
    if let forced = forcedFailure(.setsockopt) { return forced }
    #endif
    return Glibc.setsockopt(fd, level, name, value, length)
}

@inline(__always)
func system_bind(_ fd: CInt, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> CInt {
    #if ENABLE_MOCKING
    if let forced = forcedFailure(.bind) { return forced }
    #endif
    return Glibc.bind(fd, address, length)
}

@inline(__always)
func system_listen(_ fd: CInt, _ backlog: CInt) -> CInt {
    #if ENABLE_MOCKING
    if let forced = forcedFailure(.listen) { return forced }
    #endif
    return Glibc.listen(fd, backlog)
}

@inline(__always)
func system_connect(_ fd: CInt, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> CInt {
    #if ENABLE_MOCKING
    if let forced = forcedFailure(.connect) { return forced }
    #endif
    return Glibc.connect(fd, address, length)
}

/// `accept4`, a GNU extension that Glibc's module map does not export, resolved once.
private let accept4Function = cLibraryFunction(
    named: "accept4",
    as: (@convention(c) (CInt, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, CInt) -> CInt).self)

@inline(__always)
func system_accept4(
    _ fd: CInt, _ address: UnsafeMutablePointer<sockaddr>?, _ length: UnsafeMutablePointer<socklen_t>?, _ flags: CInt
) -> CInt {
    #if ENABLE_MOCKING
    if let forced = forcedFailure(.accept) { return forced }
    #endif
    guard let accept4 = accept4Function else {
        errno = ENOSYS
        return -1
    }
    return accept4(fd, address, length, flags)
}

@inline(__always)
func system_getsockname(_ fd: CInt, _ address: UnsafeMutablePointer<sockaddr>, _ length: UnsafeMutablePointer<socklen_t>) -> CInt {
    #if ENABLE_MOCKING
    if let forced = forcedFailure(.getsockname) { return forced }
    #endif
    return Glibc.getsockname(fd, address, length)
}

@inline(__always)
func system_send(_ fd: CInt, _ buffer: UnsafeRawPointer?, _ count: Int, _ flags: CInt) -> Int {
    var count = count
    #if ENABLE_MOCKING
    if let forced = forcedResult(.send, count: &count) { return forced }
    #endif
    return Glibc.send(fd, buffer, count, flags)
}

@inline(__always)
func system_recv(_ fd: CInt, _ buffer: UnsafeMutableRawPointer?, _ count: Int, _ flags: CInt) -> Int {
    var count = count
    #if ENABLE_MOCKING
    if let forced = forcedResult(.recv, count: &count) { return forced }
    #endif
    return Glibc.recv(fd, buffer, count, flags)
}

/// `getrandom`, resolved once (Glibc's module map does not export `sys/random.h`).
private let getrandomFunction = cLibraryFunction(
    named: "getrandom", as: (@convention(c) (UnsafeMutableRawPointer?, Int, CUnsignedInt) -> Int).self)

@inline(__always)
func system_getrandom(_ buffer: UnsafeMutableRawPointer?, _ count: Int, _ flags: CUnsignedInt) -> Int {
    var count = count
    #if ENABLE_MOCKING
    if let forced = forcedResult(.getrandom, count: &count) { return forced }
    #endif
    guard let getrandom = getrandomFunction else {
        errno = ENOSYS
        return -1
    }
    return getrandom(buffer, count, flags)
}
