import Binding
import TestSupport
import Testing

@testable import CollectionController

/// `_MemberTable`, the controller's members by identity, against a dictionary.
@Suite struct MemberTableTests {}

private func member(_ album: Album, label: UInt64) -> _RelationMember {
  _RelationMember(
    object: album, label: label, occurrences: 1, watch: nil, fingerprint: 0)
}

extension MemberTableTests {
  @Test func agreesWithADictionaryThroughRandomInsertsUpdatesAndRemovals() {
    var rng = SplitMix64(seed: 11)
    let albums = (0..<600).map { Album("\($0)") }
    var table = _MemberTable()
    var reference: [ObjectIdentifier: UInt64] = [:]
    for step in 0..<20_000 {
      let album = albums[Int(rng.next() % UInt64(albums.count))]
      let id = ObjectIdentifier(album)
      switch rng.next() % 6 {
      case 0, 1:
        table[id] = member(album, label: UInt64(step))
        reference[id] = UInt64(step)
      case 2:
        #expect(table.removeValue(forKey: id)?.label == reference.removeValue(forKey: id))
      case 3:
        // In place (`update`): set (inserted if absent), or cleared (removed).
        if rng.next() % 2 == 0 {
          table.update(id) { $0 = member(album, label: UInt64(step)) }
          reference[id] = UInt64(step)
        } else {
          table.update(id) { $0 = nil }
          reference[id] = nil
        }
      default:
        let found = table.update(id) { member -> Bool in
          member?.label = UInt64(step)  // changes a member only if present
          return member != nil
        }
        #expect(found == (reference[id] != nil))
        if reference[id] != nil { reference[id] = UInt64(step) }
      }
      if step % 1_000 == 0 {
        #expect(table.count == reference.count)
      }
    }
    #expect(table.count == reference.count)
    for album in albums {
      let id = ObjectIdentifier(album)
      #expect(table[id]?.label == reference[id])
    }
    #expect(Set(table.keys) == Set(reference.keys))
    #expect(table.values.count == reference.count)
    for (id, value) in table { #expect(reference[id] == value.label) }
  }

  @Test func removedSlotsAreReused() {
    let albums = (0..<100).map { Album("\($0)") }
    var table = _MemberTable()
    table.reserveCapacity(100)
    for album in albums { table[ObjectIdentifier(album)] = member(album, label: 0) }
    for album in albums.prefix(50) { table[ObjectIdentifier(album)] = nil }
    let others = (0..<50).map { Album("new \($0)") }
    for album in others { table[ObjectIdentifier(album)] = member(album, label: 1) }
    #expect(table.count == 100)
    // Pool order: the new members took the freed slots, so iteration meets 50 of each.
    #expect(table.prefix(50).allSatisfy { $0.value.label == 1 })
    #expect(table.dropFirst(50).allSatisfy { $0.value.label == 0 })
  }

  /// Recounting against an empty array still counts: every member leaves. (The offsets and
  /// labels are built in buffers of the array's length; a length of zero must not skip the
  /// counting done while filling them.)
  @Test func recountingAnEmptyArrayMakesEveryMemberLeave() {
    let albums = (0..<20).map { Album("\($0)") }
    var table = _MemberTable()
    for (k, album) in albums.enumerated() {
      table[ObjectIdentifier(album)] = member(album, label: UInt64(k))
    }
    let empty = table.recount([])
    #expect(empty.firstOccurrences.isEmpty && empty.labels.isEmpty)
    #expect(Set(empty.leaving) == Set(albums.map(ObjectIdentifier.init)))
    // And against the same members: nobody leaves, each keeps its label.
    let same = table.recount(albums.map(ObjectIdentifier.init))
    #expect(same.leaving.isEmpty)
    #expect(same.labels == (0..<20).map(UInt64.init))
  }

  /// `glance` reads what the subscript's copy holds: label, deletion and fingerprint of a
  /// member, `nil` for a stranger or a removed member.
  @Test func glanceReadsWhatTheSubscriptHolds() {
    let albums = (0..<10).map { Album("\($0)") }
    var table = _MemberTable()
    for (k, album) in albums.enumerated() {
      let watch: _WatchHandle? = k % 3 == 0 ? nil : .lone  // `nil`: it announced its deletion
      table[ObjectIdentifier(album)] = _RelationMember(
        object: album, label: UInt64(100 + k), occurrences: 1, watch: watch, fingerprint: k * 7)
    }
    table[ObjectIdentifier(albums[4])] = nil
    for album in albums {
      let id = ObjectIdentifier(album)
      let glance = table.glance(id)
      #expect(glance?.label == table[id]?.label)
      #expect(glance?.deleted == table[id]?.deleted)
      #expect(glance?.fingerprint == table[id]?.fingerprint)
    }
    #expect(table.glance(ObjectIdentifier(albums[4])) == nil)
    #expect(table.glance(ObjectIdentifier(albums[3]))?.deleted == true)
    #expect(table.glance(ObjectIdentifier(albums[5]))?.fingerprint == 35)
    #expect(table.glance(ObjectIdentifier(Album("stranger"))) == nil)
  }
}
