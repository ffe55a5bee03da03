#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#endif

/// Whether this process runs under ThreadSanitizer or AddressSanitizer (`swift test
/// --sanitize=thread` or `--sanitize=address`): their runtimes define `__tsan_init` and
/// `__asan_init`. Sanitized code runs several times slower, so tests with a deadline give it
/// more time.
public let runsUnderSanitizer: Bool = {
  #if canImport(Darwin)
    let everywhere = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
  #else
    let everywhere: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
  #endif
  return dlsym(everywhere, "__tsan_init") != nil || dlsym(everywhere, "__asan_init") != nil
}()

/// Whether this process runs under ThreadSanitizer (`swift test --sanitize=thread`): its
/// runtime defines `__tsan_init`.
public let runsUnderThreadSanitizer: Bool = {
  #if canImport(Darwin)
    let everywhere = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
  #else
    let everywhere: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
  #endif
  return dlsym(everywhere, "__tsan_init") != nil
}()
