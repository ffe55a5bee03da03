#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Android)
  import Android
#endif

/// The calling thread's identity, to key the transaction open on it.
///
/// A thread's transaction always closes on that thread before the thread can end (it closes
/// when the change that opened it returns, or when the outermost `coalesce` block ends), so a
/// reused identity never meets a stale transaction.
func _currentThreadID() -> UInt {
  _bits(pthread_self())
}

// `pthread_t` is an integer on Glibc and Bionic and a pointer on Darwin and Musl.
private func _bits(_ value: UInt) -> UInt { value }
private func _bits(_ value: Int) -> UInt { UInt(bitPattern: value) }
private func _bits(_ value: OpaquePointer?) -> UInt { UInt(bitPattern: value) }
private func _bits<Pointee>(_ value: UnsafeMutablePointer<Pointee>?) -> UInt {
  UInt(bitPattern: value)
}
