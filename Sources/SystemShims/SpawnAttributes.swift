import Glibc

/// Runs `body` with `posix_spawn` attributes under which the child starts with no signal blocked
/// and every handler at its default. A spawning process's threads often block signals (SIGALRM,
/// SIGTERM) and a mask is inherited across exec, so without this a child that times itself with
/// `alarm()` would never stop and a child sent SIGTERM would not die. The attributes are
/// destroyed when `body` returns; do not keep them.
package func withDefaultSignalSpawnAttributes<Result>(
    _ body: (inout posix_spawnattr_t) throws -> Result
) rethrows -> Result {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t(), allSignals = sigset_t()
    sigemptyset(&noSignals)
    sigfillset(&allSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setsigdefault(&attributes, &allSignals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    return try body(&attributes)
}
