import Glibc

/// The machine's processors.
package enum Processors {
    /// The processors online (`sysconf(_SC_NPROCESSORS_ONLN)`), at least 1.
    package static var online: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }
}
