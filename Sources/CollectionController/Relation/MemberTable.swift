import Binding

/// The members of a relation controller by identity: a pool of 40-byte `_RelationMember`s and
/// an `_IdentityTable` of pool slots (about 5 bytes per member), instead of a dictionary, whose
/// 48-byte buckets at a load factor of at most 3/4 cost about 100 bytes per member at 10^6.
///
/// Freed slots are reused (a stack of free slot numbers); iteration order is pool order.
@usableFromInline
struct _MemberTable: Sequence {
  @inlinable
  init() {}

  @usableFromInline
  var pool: ContiguousArray<_RelationMember?> = []
  @usableFromInline
  var free: [Int32] = []
  @usableFromInline
  var table = _IdentityTable()
  /// The number of members.
  @usableFromInline
  private(set) var count = 0

  /// Reserves room for `capacity` members.
  @inlinable
  mutating func reserveCapacity(_ capacity: Int) {
    pool.reserveCapacity(capacity)
    // Unchecked: the table maps slots of the pool only (as in every use of `bits` below).
    pool._withUncheckedElements { pool in
      table.reserveCapacity(capacity) { Self.bits(pool, $0) }
    }
  }

  /// The identity of the member in a slot, as bits (0 for a free slot). Only the identity is
  /// read: copying the member would retain its object and watch.
  @inline(__always)
  @inlinable
  static func bits(_ pool: _UncheckedElements<_RelationMember?>, _ slot: Int32) -> UInt {
    guard let object = pool[Int(slot)]?.object else { return 0 }
    return UInt(bitPattern: ObjectIdentifier(object))
  }

  @inlinable
  func slot(of id: ObjectIdentifier) -> Int32 {
    pool._withUncheckedElements { pool in
      table.find(UInt(bitPattern: id)) { Self.bits(pool, $0) }
    }
  }

  /// What the pipeline reads of a member on its way: its label, whether it announced its
  /// deletion, and its fingerprint; `nil` if `id` is not a member.
  ///
  /// Read where the member is stored: `self[id]` copies the member, which retains and releases
  /// its object and its watch.
  ///
  /// - Complexity: Expected O(1).
  @inlinable
  func glance(_ id: ObjectIdentifier) -> (label: UInt64, deleted: Bool, fingerprint: Int)? {
    let slot = slot(of: id)
    guard slot >= 0 else { return nil }
    // Unchecked: `slot(of:)` found it in the pool.
    return pool._withUncheckedElements { pool in
      // Through the view's addressor: no copy of the member.
      guard let label = pool[Int(slot)]?.label, let deleted = pool[Int(slot)]?.deleted,
        let fingerprint = pool[Int(slot)]?.fingerprint
      else { return nil }
      return (label, deleted, fingerprint)
    }
  }

  /// What `recount(_:)` found.
  @usableFromInline
  struct Recount {
    /// The offsets in the array of each element's first occurrence, in order.
    @usableFromInline
    var firstOccurrences: [Int] = []
    /// The label of each of those elements if it is a member, `.max` if it is new (parallel
    /// to `firstOccurrences`).
    @usableFromInline
    var labels: [UInt64] = []
    /// How many times the array holds each new element that it holds more than once.
    @usableFromInline
    var newDuplicates: [ObjectIdentifier: Int] = [:]
    /// The members the array does not hold.
    @usableFromInline
    var leaving: [ObjectIdentifier] = []

    @inlinable
    init(
      firstOccurrences: [Int] = [], labels: [UInt64] = [],
      newDuplicates: [ObjectIdentifier: Int] = [:], leaving: [ObjectIdentifier] = []
    ) {
      self.firstOccurrences = firstOccurrences
      self.labels = labels
      self.newDuplicates = newDuplicates
      self.leaving = leaving
    }
  }

  /// How many identities ahead `recount` prefetches table buckets.
  @inlinable
  static var lookahead: Int { 16 }

  /// Sets each member's occurrences to the number of times `ids` (a whole new array, by
  /// identity) holds it, and returns the first occurrences with the members' labels, and the
  /// members `ids` does not hold: one pass over the array and two over the members, with no
  /// dictionary lookups for members (a set of the new elements finds those held twice).
  ///
  /// - Complexity: O(n + m), where *n* is the length of `ids` and *m* the number of members.
  @inlinable
  mutating func recount(_ ids: [ObjectIdentifier]) -> Recount {
    var labels: [UInt64] = []
    var newDuplicates: [ObjectIdentifier: Int] = [:]
    var leaving: [ObjectIdentifier] = []
    var newOnes: Set<ObjectIdentifier> = []
    // Room for every element that is not a member yet (all of a first array's).
    newOnes.reserveCapacity(Swift.max(0, ids.count - count))
    let table = table
    // The offsets and labels are written through buffers (appending checked each array's
    // uniqueness at every element).
    let firstOccurrences = [Int](_uninitializedCount: ids.count) { offsets, found in
      labels = [UInt64](_uninitializedCount: ids.count) { labels, labelCount in
        // Safe: both buffers hold `ids.count` elements, and each offset of `ids` adds at most
        // once, so `found` stays below `ids.count`; both initialised counts are `found`.
        func add(_ offset: Int, _ label: UInt64) {
          offsets.initializeElement(at: found, to: offset)
          labels.initializeElement(at: found, to: label)
          found += 1
        }
        // Members are reached through an unchecked view, and only by mutating methods called
        // through optional chaining, which work in place: the array's subscript is a `_modify`
        // call and a uniqueness check per access, and reading a member out of it copies it
        // (retaining its object and watch). Together they were most of a churn assignment's
        // `recount`. Unchecked: the slots are the pool's indices, or found in the table.
        pool._withUncheckedMutableElements { members in
          for slot in members.indices { members[slot]?._occurrences = 0 }
          for (offset, id) in ids.enumerated() {
            // The bucket of the identity `lookahead` places on is asked for now: the buckets of
            // an array's identities are scattered over the table (a megabyte at 10^5 members),
            // and waiting for each in turn was most of this loop.
            if offset &+ Self.lookahead < ids.count {
              table.prefetch(UInt(bitPattern: ids[offset &+ Self.lookahead]))
            }
            let slot = Int(table.find(UInt(bitPattern: id)) { Self.bits(members.readOnly, $0) })
            if slot >= 0 {
              if let label = members[slot]?._countOccurrence() { add(offset, label) }
            } else if newOnes.insert(id).inserted {
              add(offset, .max)
            } else {
              newDuplicates[id, default: 1] += 1
            }
          }
          for slot in members.indices {
            if let id = members[slot]?._idIfUncounted() { leaving.append(id) }
          }
        }
        labelCount = found
      }
    }
    return Recount(
      firstOccurrences: firstOccurrences, labels: labels, newDuplicates: newDuplicates,
      leaving: leaving)
  }

  /// The member with identity `id`; setting `nil` removes it.
  ///
  /// - Complexity: Expected O(1).
  @inlinable
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

  /// Runs `body` on the member with identity `id` where it is stored (`nil` if there is none),
  /// and returns what it returns. Setting the member to `nil` removes it; setting an absent one
  /// inserts it.
  ///
  /// In place: `members.update(id) { $0?.mark.overtake() }` finds the member once and changes
  /// its field where it is stored, instead of copying the member out (retaining its object and
  /// watch) and finding it again to store it back. A closure, not a `_modify` accessor: the pool
  /// subscript such an accessor yields through made its coroutine frame too large for the
  /// caller's buffer, so every access allocated and freed it (two to three times a move).
  ///
  /// - Important: `body` must not access this table (it runs inside the pool's buffer, which a
  ///   read would find inconsistent and an insertion could move), and it runs under the
  ///   controller's lock: a member it sets to `nil` holding its object's last reference runs
  ///   that object's deinit under the lock. Every caller only changes fields or sets a member.
  ///
  /// - Complexity: Expected O(1).
  @inlinable
  mutating func update<Result>(
    _ id: ObjectIdentifier, _ body: (inout _RelationMember?) -> Result
  ) -> Result {
    let slot = slot(of: id)
    guard slot >= 0 else {
      var absent: _RelationMember?
      let result = body(&absent)
      if let absent { insert(absent) }
      return result
    }
    // Unchecked: `slot(of:)` found it in the pool.
    let (result, removed) = pool._withUncheckedMutableElements { pool in
      let result = body(&pool[Int(slot)])
      // Set to `nil`: removed (the table finds the slot by `id`, not by its contents).
      return (result, pool[Int(slot)] == nil)
    }
    if removed { remove(slot, id) }
    return result
  }

  /// Removes and returns the member with identity `id`, if there is one.
  @inlinable
  mutating func removeValue(forKey id: ObjectIdentifier) -> _RelationMember? {
    let slot = slot(of: id)
    guard slot >= 0 else { return nil }
    let member = pool[Int(slot)]
    remove(slot, id)
    return member
  }

  @inlinable
  mutating func insert(_ member: _RelationMember) {
    let slot: Int32
    if let reused = free.popLast() {
      slot = reused
      pool[Int(slot)] = member
    } else {
      slot = Int32(pool.count)
      pool.append(member)
    }
    count += 1
    pool._withUncheckedElements { pool in
      table.insert(slot, count: count) { Self.bits(pool, $0) }
    }
  }

  @inlinable
  mutating func remove(_ slot: Int32, _ id: ObjectIdentifier) {
    pool._withUncheckedElements { pool in
      table.remove(slot, bits: UInt(bitPattern: id)) { Self.bits(pool, $0) }
    }
    pool[Int(slot)] = nil
    free.append(slot)
    count -= 1
  }

  /// The identities of the members.
  #if COLLECTION_CONTROLLER_INTERNAL_CHECKS
    /// Traps unless the pool, the free list and the identity table agree (debug builds).
    ///
    /// - Complexity: O(n + b), where *b* is the number of identity-table buckets.
    @inlinable
    func _checkInvariants() {
      var occupied = 0
      for (slot, member) in pool.enumerated() {
        guard let member else { continue }
        occupied += 1
        precondition(
          self.slot(of: ObjectIdentifier(member.object)) == Int32(slot),
          "member table: the identity table cannot find a member")
      }
      precondition(occupied == count, "member table: \(occupied) members but count \(count)")
      precondition(occupied + free.count == pool.count, "member table: leaked slots")
      for slot in free { precondition(pool[Int(slot)] == nil, "member table: a free slot is used") }
    }
  #endif

  @inlinable
  var keys: [ObjectIdentifier] { map(\.key) }

  /// The members.
  @inlinable
  var values: [_RelationMember] { map(\.value) }

  @inlinable
  func makeIterator() -> Iterator { Iterator(pool: pool) }

  /// Iterates over the members with their identities, in pool order.
  @usableFromInline
  struct Iterator: IteratorProtocol {
    @inlinable
    init(pool: ContiguousArray<_RelationMember?>) {
      self.pool = pool
    }

    @usableFromInline
    let pool: ContiguousArray<_RelationMember?>
    @usableFromInline
    var index = 0

    @inlinable
    mutating func next() -> (key: ObjectIdentifier, value: _RelationMember)? {
      while index < pool.count {
        defer { index += 1 }
        if let member = pool[index] { return (ObjectIdentifier(member.object), member) }
      }
      return nil
    }
  }
}

/// One element of a relation, as a controller keeps it.
///
/// Not generic (the element is kept as `AnyObject` and read back as the controller's
/// `Element`), so that the controller's table of members (`_MemberTable`) is compiled once
/// here instead of running through generic metadata on every lookup.
@usableFromInline
struct _RelationMember {
  // Stored in this order so that the member takes 40 bytes (its slot in the table's pool).
  @usableFromInline
  let object: AnyObject
  /// The element's place in relation order (a sequence for the index's tie-breaks): an
  /// order-maintenance label for arrays, the order of entry for sets.
  @usableFromInline
  var label: UInt64
  /// What re-evaluates the element when something its functions read changes; `nil` once it
  /// announced its deletion (see `deleted`).
  @usableFromInline
  var watch: _WatchHandle?
  /// The hash of the observed attributes at the last transaction (see `Configuration.fingerprint`).
  @usableFromInline
  var fingerprint: Int
  @usableFromInline
  var _occurrences: Int32
  /// The claim of the re-watch under way, if any (see `_RewatchMark`). It fits in the
  /// member's padding: a member still takes 40 bytes.
  @usableFromInline
  var mark = _RewatchMark()

  @inlinable
  init(
    object: AnyObject, label: UInt64, occurrences: Int, watch: _WatchHandle?, fingerprint: Int
  ) {
    self.object = object
    self.label = label
    self.watch = watch
    self.fingerprint = fingerprint
    _occurrences = Int32(clamping: occurrences)
  }

  /// Whether the element announced its deletion: it stays a member (the relation may still
  /// hold it) but is not shown, and nothing watches it.
  @inlinable
  var deleted: Bool { watch == nil }

  /// Counts one more occurrence; returns the label if it is the first (see `recount`).
  @inlinable
  mutating func _countOccurrence() -> UInt64? {
    if _occurrences < .max { _occurrences += 1 }  // saturates, as `occurrences` clamps
    return _occurrences == 1 ? label : nil
  }

  /// The identity, if no occurrence was counted (see `recount`).
  @inlinable
  mutating func _idIfUncounted() -> ObjectIdentifier? {
    _occurrences == 0 ? ObjectIdentifier(object) : nil
  }

  /// How many times an array holds the element.
  @inlinable
  var occurrences: Int {
    get { Int(_occurrences) }
    set { _occurrences = Int32(clamping: newValue) }
  }
}
