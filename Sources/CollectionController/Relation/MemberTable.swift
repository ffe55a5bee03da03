/// The members of a relation controller by identity: a pool of 40-byte `_RelationMember`s and
/// an `_IdentityTable` of pool slots (about 5 bytes per member), instead of a dictionary, whose
/// 48-byte buckets at a load factor of at most 3/4 cost about 100 bytes per member at 10^6.
///
/// Freed slots are reused (a stack of free slot numbers); iteration order is pool order.
struct _MemberTable: Sequence {
  private var pool: ContiguousArray<_RelationMember?> = []
  private var free: [Int32] = []
  private var table = _IdentityTable()
  /// The number of members.
  private(set) var count = 0

  /// Reserves room for `capacity` members.
  mutating func reserveCapacity(_ capacity: Int) {
    pool.reserveCapacity(capacity)
    let pool = pool
    table.reserveCapacity(capacity) { Self.bits(pool[Int($0)]) }
  }

  /// The identity of the member in a slot, as bits (0 for a free slot).
  @inline(__always)
  private static func bits(_ member: _RelationMember?) -> UInt {
    member.map { UInt(bitPattern: ObjectIdentifier($0.object)) } ?? 0
  }

  private func slot(of id: ObjectIdentifier) -> Int32 {
    table.find(UInt(bitPattern: id)) { Self.bits(pool[Int($0)]) }
  }

  /// The member with identity `id`; setting `nil` removes it.
  ///
  /// - Complexity: Expected O(1).
  subscript(id: ObjectIdentifier) -> _RelationMember? {
    get {
      let slot = slot(of: id)
      return slot < 0 ? nil : pool[Int(slot)]
    }
    set {
      let slot = slot(of: id)
      if slot >= 0 {
        if let newValue {
          pool[Int(slot)] = newValue
        } else {
          remove(slot, id)
        }
      } else if let newValue {
        insert(newValue)
      }
    }
  }

  /// Removes and returns the member with identity `id`, if there is one.
  mutating func removeValue(forKey id: ObjectIdentifier) -> _RelationMember? {
    let slot = slot(of: id)
    guard slot >= 0 else { return nil }
    let member = pool[Int(slot)]
    remove(slot, id)
    return member
  }

  private mutating func insert(_ member: _RelationMember) {
    let slot: Int32
    if let reused = free.popLast() {
      slot = reused
      pool[Int(slot)] = member
    } else {
      slot = Int32(pool.count)
      pool.append(member)
    }
    count += 1
    let pool = pool
    table.insert(slot, count: count) { Self.bits(pool[Int($0)]) }
  }

  private mutating func remove(_ slot: Int32, _ id: ObjectIdentifier) {
    do {
      // A second reference to the pool, ended before the pool is written (or it would copy).
      let pool = pool
      table.remove(slot, bits: UInt(bitPattern: id)) { Self.bits(pool[Int($0)]) }
    }
    pool[Int(slot)] = nil
    free.append(slot)
    count -= 1
  }

  /// The identities of the members.
  var keys: [ObjectIdentifier] { map(\.key) }

  /// The members.
  var values: [_RelationMember] { map(\.value) }

  func makeIterator() -> Iterator { Iterator(pool: pool) }

  /// Iterates over the members with their identities, in pool order.
  struct Iterator: IteratorProtocol {
    fileprivate let pool: ContiguousArray<_RelationMember?>
    fileprivate var index = 0

    mutating func next() -> (key: ObjectIdentifier, value: _RelationMember)? {
      while index < pool.count {
        defer { index += 1 }
        if let member = pool[index] { return (ObjectIdentifier(member.object), member) }
      }
      return nil
    }
  }
}
