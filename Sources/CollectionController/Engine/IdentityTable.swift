public import _BindingThreadLocal

/// An open-addressing hash table (linear probing) from object identities to `Int32` slot
/// numbers of a pool that the owner keeps: the key of a bucket is the identity of what its slot
/// holds, read through the `identity` closure each operation takes, so a bucket costs 4 bytes
/// instead of the 16 of an `[ObjectIdentifier: Int32]` entry. Deletion shifts later entries
/// back (no tombstones), so lookups never degrade with churn. The load factor stays at most 3/4.
@usableFromInline
struct _IdentityTable {
  /// Slot numbers, `-1` for an empty bucket; the count is 0 or a power of two.
  @usableFromInline
  private(set) var buckets: ContiguousArray<Int32> = []
  @usableFromInline
  var shift: UInt64 = 64

  @inline(__always)
  @inlinable
  func bucket(ofBits bits: UInt) -> Int {
    // Fibonacci hashing: multiply by 2^64 / golden ratio, keep the top bits.
    Int(truncatingIfNeeded: (UInt64(bits) &* 0x9E37_79B9_7F4A_7C15) >> shift)
  }

  /// Asks for the bucket where a lookup of `bits` starts to be brought into the cache, without
  /// waiting for it.
  @inline(__always)
  @inlinable
  func prefetch(_ bits: UInt) {
    buckets.withUnsafeBufferPointer { buckets in
      // Safe: a non-empty table's bucket index is below its count (the hash keeps the top
      // bits for a power-of-two count), and a prefetch never faults anyway.
      if let base = buckets.baseAddress, !buckets.isEmpty {
        _binding_prefetch(base + bucket(ofBits: bits))
      }
    }
  }

  /// The slot whose identity is `bits`, or `-1`.
  @inline(__always)
  @inlinable
  func find(_ bits: UInt, identity: (Int32) -> UInt) -> Int32 {
    if buckets.isEmpty { return -1 }
    let mask = buckets.count - 1
    var bucket = bucket(ofBits: bits)
    while true {
      let slot = buckets[bucket]
      if slot < 0 || identity(slot) == bits { return slot }
      bucket = (bucket + 1) & mask
    }
  }

  /// Adds `slot`, the table then mapping `count` slots (growing when it would be overloaded).
  @inlinable
  mutating func insert(_ slot: Int32, count: Int, identity: (Int32) -> UInt) {
    if count * 4 > buckets.count * 3 {
      rehash(minimumCapacity: count, identity: identity)
    }
    place(slot, identity: identity)
  }

  @inlinable
  mutating func place(_ slot: Int32, identity: (Int32) -> UInt) {
    let mask = buckets.count - 1
    var bucket = bucket(ofBits: identity(slot))
    while buckets[bucket] >= 0 {
      bucket = (bucket + 1) & mask
    }
    buckets[bucket] = slot
  }

  /// Removes `slot`, whose identity is `bits`.
  @inlinable
  mutating func remove(_ slot: Int32, bits: UInt, identity: (Int32) -> UInt) {
    let mask = buckets.count - 1
    var hole = bucket(ofBits: bits)
    while buckets[hole] != slot {
      hole = (hole + 1) & mask
    }
    var next = hole
    while true {
      next = (next + 1) & mask
      let candidate = buckets[next]
      if candidate < 0 { break }
      let home = bucket(ofBits: identity(candidate))
      // The candidate may fill the hole unless its home lies cyclically in (hole, next].
      let staysPut = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
      if !staysPut {
        buckets[hole] = candidate
        hole = next
      }
    }
    buckets[hole] = -1
  }

  /// Makes room for `minimumCapacity` slots at a load factor of at most 3/4, if there is none.
  @inlinable
  mutating func reserveCapacity(_ minimumCapacity: Int, identity: (Int32) -> UInt) {
    if minimumCapacity * 4 > buckets.count * 3 {
      rehash(minimumCapacity: minimumCapacity, identity: identity)
    }
  }

  /// Rebuilds the table with room for `minimumCapacity` slots at a load factor of at most 3/4.
  @inlinable
  mutating func rehash(minimumCapacity: Int, identity: (Int32) -> UInt) {
    var capacity = 16
    var shift: UInt64 = 60
    while minimumCapacity * 4 > capacity * 3 {
      capacity *= 2
      shift -= 1
    }
    let old = buckets
    buckets = ContiguousArray(repeating: -1, count: capacity)
    self.shift = shift
    for slot in old where slot >= 0 {
      place(slot, identity: identity)
    }
  }

  /// Empties the table.
  @inlinable
  mutating func removeAll() {
    buckets = []
    shift = 64
  }

  @inlinable
  init(buckets: ContiguousArray<Int32> = [], shift: UInt64 = 64) {
    self.buckets = buckets
    self.shift = shift
  }
}
