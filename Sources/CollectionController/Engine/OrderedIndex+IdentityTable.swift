// The identity table of `_OrderedIndex`: open addressing with linear probing over `Int32` slot
// numbers. The key of a bucket is the identity of the element in the node it names, so a bucket
// costs 4 bytes instead of the 16 of a `[ObjectIdentifier: Int32]` entry. Deletion shifts later
// entries back (no tombstones), so lookups never degrade with churn.

extension _OrderedIndex {
  @inline(__always)
  func _bucket(of id: ObjectIdentifier) -> Int {
    _bucket(ofBits: UInt(bitPattern: id))
  }

  @inline(__always)
  func _bucket(ofBits bits: UInt) -> Int {
    // Fibonacci hashing: multiply by 2^64 / golden ratio, keep the top bits.
    Int(truncatingIfNeeded: (UInt64(bits) &* 0x9E37_79B9_7F4A_7C15) >> _bucketShift)
  }

  /// The identity of a slot's element, as bits: kept in the node, so that lookups load no
  /// element (no generic copy, no retain).
  @inline(__always)
  func _identity(ofSlot slot: Int32) -> UInt {
    _nodes[Int(slot)].identity
  }

  /// The slot of the element with identity `id`, or `-1`.
  func _find(_ id: ObjectIdentifier) -> Int32 {
    if _buckets.isEmpty { return -1 }
    let mask = _buckets.count - 1
    var bucket = _bucket(of: id)
    while true {
      let slot = _buckets[bucket]
      if slot < 0 || _identity(ofSlot: slot) == UInt(bitPattern: id) { return slot }
      bucket = (bucket + 1) & mask
    }
  }

  mutating func _tableInsert(_ slot: Int32) {
    if (count + 1) * 4 > _buckets.count * 3 {
      _rehash(minimumCapacity: count + 1)
    }
    _placeInTable(slot)
  }

  mutating func _placeInTable(_ slot: Int32) {
    let mask = _buckets.count - 1
    var bucket = _bucket(ofBits: _identity(ofSlot: slot))
    while _buckets[bucket] >= 0 {
      bucket = (bucket + 1) & mask
    }
    _buckets[bucket] = slot
  }

  /// Removes `slot`, whose element has identity `id`, from the table.
  mutating func _tableRemove(_ slot: Int32, id: ObjectIdentifier) {
    let mask = _buckets.count - 1
    var hole = _bucket(of: id)
    while _buckets[hole] != slot {
      hole = (hole + 1) & mask
    }
    var next = hole
    while true {
      next = (next + 1) & mask
      let candidate = _buckets[next]
      if candidate < 0 { break }
      let home = _bucket(ofBits: _identity(ofSlot: candidate))
      // The candidate may fill the hole unless its home lies cyclically in (hole, next].
      let staysPut = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
      if !staysPut {
        _buckets[hole] = candidate
        hole = next
      }
    }
    _buckets[hole] = -1
  }

  /// Rebuilds the table with room for `minimumCapacity` elements at a load factor of at most 3/4.
  mutating func _rehash(minimumCapacity: Int) {
    var capacity = 16
    var shift: UInt64 = 60
    while minimumCapacity * 4 > capacity * 3 {
      capacity *= 2
      shift -= 1
    }
    let old = _buckets
    _buckets = ContiguousArray(repeating: -1, count: capacity)
    _bucketShift = shift
    for slot in old where slot >= 0 {
      _placeInTable(slot)
    }
  }
}
