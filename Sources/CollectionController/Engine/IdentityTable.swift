import Binding

/// An open-addressing hash table (linear probing) from object identities to `Int32` slot
/// numbers of a pool that the owner keeps: the key of a bucket is the identity of what its slot
/// holds, read through the `identity` closure each operation takes, so a bucket costs 4 bytes
/// instead of the 16 of an `[ObjectIdentifier: Int32]` entry. Deletion shifts later entries
/// back (no tombstones), so lookups never degrade with churn. The load factor stays at most 3/4.
///
/// A bucket holds its slot number in its low bits (every slot is below the bucket count) and,
/// in the bits above up to the sign, a tag: hash bits that the bucket number does not use. A
/// lookup reads the pool (the `identity` closure) only for a bucket whose tag matches: at 10^6
/// entries the tag has 10 bits, so a probe past another entry almost never loads that entry's
/// record, a cache miss of its own in a large pool.
@usableFromInline
struct _IdentityTable {
  /// Tagged slot numbers (see the type's overview), `-1` for an empty bucket; the count is 0 or
  /// a power of two, at most 2^31.
  @usableFromInline
  private(set) var buckets: ContiguousArray<Int32> = []
  @usableFromInline
  var shift: UInt64 = 64

  /// The hash of an identity's bits: its top bits are the bucket number, the next ones the tag.
  @inline(__always)
  @inlinable
  static func hash(_ bits: UInt) -> UInt64 {
    // Fibonacci hashing: multiply by 2^64 / golden ratio; the bucket is the top bits.
    UInt64(bits) &* 0x9E37_79B9_7F4A_7C15
  }

  /// The home bucket of an identity's bits.
  @inline(__always)
  @inlinable
  func bucket(ofBits bits: UInt) -> Int {
    Int(truncatingIfNeeded: Self.hash(bits) >> shift)
  }

  /// The tag of `hash` in place above the slot bits: the top 31 bits of the hash, less those
  /// of the bucket number, shifted up by the number of slot bits (those of a bucket number).
  @inline(__always)
  @inlinable
  func tag(_ hash: UInt64) -> Int32 {
    Int32(truncatingIfNeeded: ((hash >> 33) << (64 &- shift)) & 0x7FFF_FFFF)
  }

  /// The mask of a bucket's slot bits (the bucket count less one).
  @inline(__always)
  @inlinable
  var slotMask: Int32 { Int32(truncatingIfNeeded: buckets.count &- 1) }

  /// Calls `body` with each slot the table maps.
  @inlinable
  func forEachSlot(_ body: (Int32) -> Void) {
    let mask = slotMask
    for entry in buckets where entry >= 0 { body(entry & mask) }
  }

  /// Asks for the bucket where a lookup of `bits` starts to be brought into the cache, without
  /// waiting for it.
  @inline(__always)
  @inlinable
  func prefetch(_ bits: UInt) {
    // A non-empty table's bucket index is below its count (the hash keeps the top bits for a
    // power-of-two count); a prefetch never faults anyway.
    if !buckets.isEmpty { buckets._prefetchElement(at: bucket(ofBits: bits)) }
  }

  /// Calls `body` with each slot whose bucket's tag matches that of `bits`, probing from its
  /// home bucket to the first empty one, without reading the pool: the candidates for a lookup
  /// of `bits` (almost always one, when it is in the table), so that their records can be
  /// asked for before they are read.
  @inline(__always)
  @inlinable
  func forEachCandidate(_ bits: UInt, _ body: (Int32) -> Void) {
    _ = probe(bits) { slot in
      body(slot)
      return false
    }
  }

  /// The slot whose identity is `bits`, or `-1`.
  @inline(__always)
  @inlinable
  func find(_ bits: UInt, identity: (Int32) -> UInt) -> Int32 {
    probe(bits) { identity($0) == bits }
  }

  /// Probes from the home bucket of `bits` to the first empty one, calling `isMatch` with the
  /// slot of each bucket whose tag matches; returns the first slot it accepts, or `-1`.
  @inline(__always)
  @inlinable
  func probe(_ bits: UInt, _ isMatch: (Int32) -> Bool) -> Int32 {
    if buckets.isEmpty { return -1 }
    let mask = buckets.count - 1
    let slotMask = Int32(truncatingIfNeeded: mask)
    let hash = Self.hash(bits)
    let tag = tag(hash)
    var bucket = Int(truncatingIfNeeded: hash >> shift)
    while true {
      let entry = buckets[bucket]
      if entry < 0 { return -1 }
      if entry & ~slotMask == tag && isMatch(entry & slotMask) { return entry & slotMask }
      bucket = (bucket + 1) & mask
    }
  }

  /// Adds `slot`, the table then mapping `count` slots (growing when it would be overloaded).
  @inlinable
  mutating func insert(_ slot: Int32, count: Int, identity: (Int32) -> UInt) {
    // A slot must fit in a bucket's slot bits (pools allocate their slots in order, so this
    // holds whenever the load does; the check makes the table independent of that).
    if count * 4 > buckets.count * 3 || Int(slot) >= buckets.count {
      rehash(minimumCapacity: Swift.max(count, Int(slot) + 1), identity: identity)
    }
    place(slot, identity: identity)
  }

  /// Stores `slot` (below the bucket count) in the first empty bucket from its home.
  @inlinable
  mutating func place(_ slot: Int32, identity: (Int32) -> UInt) {
    let mask = buckets.count - 1
    let hash = Self.hash(identity(slot))
    var bucket = Int(truncatingIfNeeded: hash >> shift)
    assert(Int(slot) < buckets.count, "a slot beyond the slot bits")
    while buckets[bucket] >= 0 {
      bucket = (bucket + 1) & mask
    }
    buckets[bucket] = tag(hash) | slot
  }

  /// Removes `slot`, whose identity is `bits`.
  @inlinable
  mutating func remove(_ slot: Int32, bits: UInt, identity: (Int32) -> UInt) {
    let mask = buckets.count - 1
    let slotMask = Int32(truncatingIfNeeded: mask)
    var hole = bucket(ofBits: bits)
    while buckets[hole] < 0 || buckets[hole] & slotMask != slot {
      hole = (hole + 1) & mask
    }
    var next = hole
    while true {
      next = (next + 1) & mask
      let candidate = buckets[next]
      if candidate < 0 { break }
      let home = bucket(ofBits: identity(candidate & slotMask))
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
    // Slot numbers are `Int32`s: a bucket count of 2^31 leaves the tag no bits, and a larger
    // one would need more slot bits than a bucket has.
    precondition(capacity <= 1 << 31, "too many elements for the identity table's 32-bit buckets")
    let old = buckets
    let oldMask = slotMask
    buckets = ContiguousArray(repeating: -1, count: capacity)
    self.shift = shift
    for entry in old where entry >= 0 {
      place(entry & oldMask, identity: identity)
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
