public import _BindingThreadLocal

// What inlinable code uses of the C module `_BindingThreadLocal`, in this one file, which imports
// it `public`ly: inlinable code may use only what a `public import` brings (not a `package` or
// `internal` one), and these must inline into clients' specialised code, where each is one load
// or one instruction (an out-of-line call would cost more than the load it wraps). Other files
// import the module `internal`ly, or not at all: CollectionController's engine prefetches through
// `_cachePrefetch(_:)`.

/// The calling thread's access-tracking depth (`_isTracking()`): one thread-local load, `pure`.
@inlinable
@inline(__always)
func _trackingDepth() -> Int {
  _binding_trackingDepth()
}

/// Tells ThreadSanitizer, if the process runs under it, that the lock at `address` was acquired.
@inlinable
@inline(__always)
func _tsanAcquire(_ address: UnsafeRawPointer) {
  _binding_tsanAcquire(address)
}

/// Tells ThreadSanitizer, if the process runs under it, that the lock at `address` is released.
@inlinable
@inline(__always)
func _tsanRelease(_ address: UnsafeRawPointer) {
  _binding_tsanRelease(address)
}

/// Asks the processor to bring the cache line of `address` in for reading (a hint: no fault,
/// no effect on what the program computes). One instruction.
@inlinable
@inline(__always)
package func _cachePrefetch(_ address: UnsafeRawPointer?) {
  _binding_prefetch(address)
}
