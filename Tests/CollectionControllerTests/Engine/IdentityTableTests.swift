import TestSupport
import Testing

@testable import CollectionController

/// `_IdentityTable`, the identity-to-slot table of the member table and of the index, over a
/// pool of identity bit patterns (0 for a free slot), against a dictionary.
@Suite struct IdentityTableTests {}

/// A pool of identities and the table over it, as the member table and the index keep them.
private struct Pool {
  var identities: [UInt] = []
  var free: [Int32] = []
  var table = _IdentityTable()
  var count = 0
  /// How many times the table read an identity from the pool.
  var reads = 0

  mutating func insert(_ bits: UInt) -> Int32 {
    let slot: Int32
    if let reused = free.popLast() {
      slot = reused
      identities[Int(slot)] = bits
    } else {
      slot = Int32(identities.count)
      identities.append(bits)
    }
    count += 1
    let identities = identities
    table.insert(slot, count: count) { identities[Int($0)] }
    return slot
  }

  mutating func find(_ bits: UInt) -> Int32 {
    let identities = identities
    var reads = 0
    let slot = table.find(bits) { slot in
      reads += 1
      return identities[Int(slot)]
    }
    self.reads += reads
    return slot
  }

  mutating func remove(_ slot: Int32) {
    let identities = identities
    table.remove(slot, bits: identities[Int(slot)]) { identities[Int($0)] }
    self.identities[Int(slot)] = 0
    free.append(slot)
    count -= 1
  }
}

/// The identity whose Fibonacci hash is `hash` (the multiplier is odd, so it has an inverse
/// modulo 2^64): lets a test choose where identities land and which tags they carry.
private func identity(hashing hash: UInt64) -> UInt {
  let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
  var inverse = multiplier  // Newton's iteration doubles the correct low bits each step.
  for _ in 0..<6 { inverse = inverse &* (2 &- multiplier &* inverse) }
  return UInt(hash &* inverse)
}

extension IdentityTableTests {
  /// Random inserts and removals through growth, with identities crafted into clusters: many
  /// share a home bucket at every capacity (the same top 20 bits of hash), some of those also
  /// share their tag (the same top 31 bits), so only the pool's identity tells them apart.
  @Test(arguments: [1, 2, 3])
  func agreesWithADictionaryThroughClustersAndGrowth(seed: UInt64) {
    var rng = SplitMix64(seed: seed)
    var identities: [UInt] = []
    for _ in 0..<3_000 { identities.append(UInt(truncatingIfNeeded: rng.next() | 1)) }
    for cluster in 0..<40 {
      let top = rng.next() & ~(UInt64(1) << 44 - 1)  // the top 20 bits
      for member in 0..<12 {
        // Half of each cluster also shares its top 31 bits (and so its tag).
        let low = member < 6 ? UInt64(member + 1) : UInt64(member) << 40
        identities.append(identity(hashing: top | low | UInt64(cluster) << 8))
      }
    }
    var pool = Pool()
    var reference: [UInt: Int32] = [:]
    for step in 0..<40_000 {
      let bits = identities[Int(rng.next() % UInt64(identities.count))]
      if let slot = reference[bits] {
        #expect(pool.find(bits) == slot)
        // Removes one in three found, so the table grows, churns and grows again.
        if step % 3 == 0 {
          pool.remove(slot)
          reference[bits] = nil
          #expect(pool.find(bits) == -1)
        }
      } else {
        #expect(pool.find(bits) == -1)
        reference[bits] = pool.insert(bits)
      }
    }
    #expect(pool.count == reference.count)
    for bits in identities { #expect(pool.find(bits) == reference[bits] ?? -1) }
    var mapped: [Int32] = []
    pool.table.forEachSlot { mapped.append($0) }
    #expect(mapped.sorted() == reference.values.sorted())
  }

  /// A lookup reads the pool only for a bucket whose tag matches: once for an identity it
  /// finds, almost never for one it does not; the same buckets are the candidates offered for
  /// prefetching (reading the identity of every bucket it passes,
  /// about 1.5 reads a lookup at this load, was a cache miss each in a large pool).
  @Test func lookupsReadThePoolOnlyForMatchingTags() {
    var rng = SplitMix64(seed: 7)
    var pool = Pool()
    var present: [UInt] = []
    // 12,000 in 16,384 buckets: a load of 0.73, with 17 tag bits.
    for _ in 0..<12_000 {
      let bits = UInt(truncatingIfNeeded: rng.next() | 1)
      _ = pool.insert(bits)
      present.append(bits)
    }
    #expect(pool.table.buckets.count == 16_384)
    pool.reads = 0
    for bits in present { #expect(pool.find(bits) >= 0) }
    #expect(pool.reads >= present.count && pool.reads <= present.count + 10)
    pool.reads = 0
    for _ in 0..<12_000 {
      #expect(pool.find(UInt(truncatingIfNeeded: rng.next() | 1)) == -1)
    }
    #expect(pool.reads <= 10)
    // The candidates that `forEachCandidate` offers for prefetching: the identity's own slot,
    // and almost never another.
    var candidates = 0
    for bits in present {
      var own = false
      pool.table.forEachCandidate(bits) { slot in
        candidates += 1
        if pool.identities[Int(slot)] == bits { own = true }
      }
      #expect(own)
    }
    #expect(candidates <= present.count + 10)
  }

  /// A slot beyond the buckets (a pool with a longer history than the table) grows the table
  /// until it fits in a bucket's slot bits, even when the count alone would not.
  @Test func aSlotBeyondTheBucketsGrowsTheTable() {
    var table = _IdentityTable()
    let identities: [Int32: UInt] = [5_000: 0xDEAD_BEE8, 3: 0x1234_5678]
    table.insert(3, count: 1) { identities[$0] ?? 0 }
    #expect(table.buckets.count == 16)
    table.insert(5_000, count: 2) { identities[$0] ?? 0 }
    #expect(table.buckets.count > 5_000)
    #expect(table.find(0xDEAD_BEE8) { identities[$0] ?? 0 } == 5_000)
    #expect(table.find(0x1234_5678) { identities[$0] ?? 0 } == 3)
    #expect(table.find(0x1234_5670) { identities[$0] ?? 0 } == -1)
  }
}
