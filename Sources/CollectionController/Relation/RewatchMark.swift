/// A member's claim for re-watches: whether a thread re-watches the element now, and the
/// generation of that thread's claim.
///
/// Stored in the member (under the controller's lock). A re-watch evaluates the element's
/// functions with no lock held, so two threads (or a thread and the drainer) can race for the
/// same member; the mark decides, under the lock, which of them installs its watch:
///
/// ```
///          claim → generation g                  commit(g) → committed / deleted
///   idle ─────────────────────────▶ claimed ──────────────────────────────────────▶ idle
///    ▲                               │  ▲
///    │                          claim│  │commit(g) → again (the claimant evaluates once more)
///    │                        → nil  ▼  │
///    │                             firedAgain
///    │
///    └── overtake() from any phase: the generation moves on, so commit(g) → overtaken
/// ```
///
/// - One thread at a time re-watches a member: a second `claim(isDeleted:)` gets `nil` and leaves the mark
///   `firedAgain`, so the claimant evaluates again and its last evaluation follows every write.
/// - A commit counts only with the claim's generation: after `overtake()` (the drainer deleted
///   the member, or the owner went away) or after the member left and came back (a new mark,
///   `entering(seed:)`, whose generations start elsewhere), a late commit is `overtaken`, and
///   that re-watch ends only the watch it made.
@usableFromInline
struct _RewatchMark: Equatable {
  /// Who re-watches the member.
  @usableFromInline
  enum Phase: UInt8 {
    /// Nobody.
    case idle
    /// One thread, since its claim.
    case claimed
    /// One thread, and something fired again since its claim: it evaluates once more.
    case firedAgain
  }

  /// What a commit decided.
  @usableFromInline
  enum Commit: Equatable {
    /// The claim is no longer the member's: install nothing.
    case overtaken
    /// Installed no watch: the element announced its deletion (the mark is idle).
    case deleted
    /// Installed; the re-watch is over (the mark is idle).
    case committed
    /// Installed, and something fired meanwhile: evaluate again under the same claim.
    case again
  }

  @usableFromInline
  private(set) var phase: Phase
  /// The generation of the current (or last) claim.
  @usableFromInline
  private(set) var generation: UInt16

  /// A mark with no claim.
  @inlinable
  init() {
    phase = .idle
    generation = 0
  }

  @inlinable
  init(phase: Phase, generation: UInt16) {
    self.phase = phase
    self.generation = generation
  }

  /// The mark of a member entering the relation, claimed by the drainer that lists it (a write
  /// landing while its first watch is made then marks the claim instead of finding no member).
  /// `seed` moves on by a large step for each entering member, so that a stale re-watch of an
  /// element that left and came back cannot take the new claims for its own.
  @inlinable
  static func entering(seed: UInt16) -> _RewatchMark {
    _RewatchMark(phase: .claimed, generation: seed &+ 1)
  }

  /// Claims the member: the claim's generation, or `nil` if another thread re-watches it (which
  /// is then told to evaluate once more) or if the member `isDeleted` (nothing watches it any
  /// more). A member entering the relation has no watch yet but is claimed already, so a write
  /// that lands then is followed.
  @inlinable
  mutating func claim(isDeleted: Bool) -> UInt16? {
    guard phase == .idle else {
      phase = .firedAgain
      return nil
    }
    guard !isDeleted else { return nil }
    phase = .claimed
    generation &+= 1
    return generation
  }

  /// A re-watch under the claim `claimed` evaluated the element (`madeWatch`: `false` if the
  /// element announced its deletion): whether its watch is installed, and what comes next.
  @inlinable
  mutating func commit(_ claimed: UInt16, madeWatch: Bool) -> Commit {
    guard phase != .idle, generation == claimed else { return .overtaken }
    guard madeWatch else {
      phase = .idle
      return .deleted
    }
    guard phase == .claimed else {
      phase = .claimed
      return .again
    }
    phase = .idle
    return .committed
  }

  /// The drainer takes the member over (its deletion, the owner's end): a re-watch under way
  /// is overtaken and installs nothing.
  @inlinable
  mutating func overtake() {
    phase = .idle
    generation &+= 1
  }
}
