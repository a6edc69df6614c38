import Glibc

/// A C library function that Glibc's module map does not export (GNU extensions such as
/// `pipe2`, `eventfd` or `posix_spawn_file_actions_addchdir_np`), looked up by name in the
/// running program; `nil` when the C library has no such symbol. `type` must be the function's
/// exact `@convention(c)` type: a wrong one is undefined behaviour.
package func cLibraryFunction<Function>(named name: String, as type: Function.Type) -> Function? {
    guard let program = dlopen(nil, RTLD_NOW), let symbol = dlsym(program, name) else { return nil }
    return unsafeBitCast(symbol, to: type)
}
