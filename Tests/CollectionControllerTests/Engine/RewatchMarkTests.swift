import Binding
import Testing

@testable import CollectionController

/// A member's re-watch claim as a state machine (`_RewatchMark`): who installs a watch when
/// threads, and the drainer, race for the same member.
@Suite struct RewatchMarkTests {
  @Test func aClaimCommitsOnceAndLeavesTheMarkIdle() {
    var mark = _RewatchMark()
    let generation = mark.claim(isDeleted: false)
    #expect(generation != nil)
    #expect(mark.phase == .claimed)
    #expect(mark.commit(generation ?? 0, madeWatch: true) == .committed)
    #expect(mark.phase == .idle)
    // The same claim cannot commit twice.
    #expect(mark.commit(generation ?? 0, madeWatch: true) == .overtaken)
  }

  @Test func aSecondClaimantIsTurnedAwayAndTheFirstEvaluatesAgain() {
    var mark = _RewatchMark()
    let first = mark.claim(isDeleted: false)
    let second = mark.claim(isDeleted: false)
    #expect(second == nil)  // one thread at a time
    #expect(mark.phase == .firedAgain)
    // The first claimant's commit installs its watch and asks for one more evaluation, under
    // the same claim; the next commit ends the re-watch.
    #expect(mark.commit(first ?? 0, madeWatch: true) == .again)
    #expect(mark.phase == .claimed)
    #expect(mark.commit(first ?? 0, madeWatch: true) == .committed)
    // Once idle, a new claim is a new generation.
    let third = mark.claim(isDeleted: false)
    #expect(third != nil && third != first)
  }

  @Test func aDeletedMemberCannotBeClaimedButAnEnteringOneIsFollowed() {
    var idle = _RewatchMark()
    #expect(idle.claim(isDeleted: true) == nil)
    #expect(idle.phase == .idle)  // nothing waits for an evaluation
    // A member entering the relation has no watch yet and is claimed by its drainer: a write
    // landing meanwhile marks the claim rather than being lost.
    var entering = _RewatchMark.entering(seed: 10)
    #expect(entering.phase == .claimed)
    #expect(entering.claim(isDeleted: true) == nil)
    #expect(entering.phase == .firedAgain)
    #expect(entering.commit(entering.generation, madeWatch: true) == .again)
  }

  @Test func aCommitThatFindsTheElementDeletedLeavesTheMarkIdle() {
    var mark = _RewatchMark()
    let generation = mark.claim(isDeleted: false) ?? 0
    _ = mark.claim(isDeleted: false)  // fired again: the deletion still wins
    #expect(mark.commit(generation, madeWatch: false) == .deleted)
    #expect(mark.phase == .idle)
  }

  @Test func anOvertakenClaimInstallsNothing() {
    var mark = _RewatchMark()
    let generation = mark.claim(isDeleted: false) ?? 0
    mark.overtake()  // the drainer deleted the member, or the owner went away
    #expect(mark.phase == .idle)
    #expect(mark.commit(generation, madeWatch: true) == .overtaken)
    // A claim made after the takeover is a new generation, and commits.
    let next = mark.claim(isDeleted: false) ?? 0
    #expect(next != generation)
    #expect(mark.commit(next, madeWatch: true) == .committed)
  }

  @Test func aStaleClaimDoesNotCommitToAMemberThatLeftAndCameBack() {
    var old = _RewatchMark.entering(seed: 0)
    let stale = old.generation
    // The element left; it comes back as a new member, whose claims start elsewhere.
    var returned = _RewatchMark.entering(seed: 4_099)
    #expect(returned.commit(stale, madeWatch: true) == .overtaken)
    #expect(old.commit(stale, madeWatch: true) == .committed)
  }

  @Test func theMarkFitsInTheMembersPadding() {
    #expect(MemoryLayout<_RewatchMark>.size <= 4)
    #expect(MemoryLayout<_RelationMember>.stride == 40)
  }
}
