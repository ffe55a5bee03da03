// The benchmark of the package: every figure is a ratio against a baseline measured in the
// same run, because the machines are shared and noisy.
//
// How the figures are measured (so that they mean the same next time):
// - Observation figures: medians of 11 interleaved rounds (3 with --quick) after one warm-up
//   round; every variant runs once per round, in a fixed order, so a disturbance of the machine
//   hits all of them alike. A ratio is taken within each round (candidate / baseline of the
//   same round); the report shows the median ratio, the lowest and highest round, and the two
//   medians in nanoseconds per operation (DispatchTime). Values are `Int` (`age`), set to the
//   loop index so that every write changes the value. Iterations per round: 2x10^6 for sets and
//   gets, 2x10^5 for one observer, 2x10^4 for ten (and for the re-arm loop).
// - Inlining: each set or get is one call of an `@inline(never)` function, for the baseline and
//   for the candidate alike, so that the optimiser can neither merge a loop's stores nor hoist a
//   read out of it; the getters read from 64 objects in turn for the same reason. The property
//   accessors themselves inline as they do in user code (the `@Observed` accessors are
//   `@inline(__always)`), and registrations are made with literal key paths, as users write them.
//   The executable is built without function merging (Benchmarks/Package.swift): it folded loops
//   that differ only in what they call into one calling through a pointer, so a loop with a twin
//   (`setObserved`, like `setAddress`) paid an indirect call that a loop without one (`setPlain`)
//   did not. Figures from before 2026-11-25 were taken with it (the set ratio then read 1.5x
//   where both sides calling directly read 1.0x).
// - "didSet + stored closure": a class whose `age` has a `didSet` calling a closure stored in a
//   property, made by an `@inline(never)` factory so that it stays opaque.
// - The floor line (the goal baseline of every target figure): a hand-written `didSet` that does
//   only what a target registration cannot avoid: load the weakly held target, build a change
//   value holding the object, the key path, old and new value, call a stored closure; with ten
//   targets, the same for each of ten weakly held targets.
// - "one target": `addTarget` registered from nonisolated code (synchronous delivery), the target
//   held weakly as the API promises. "main-actor target": registered from the main actor and
//   written on the main thread (the benchmark's top level), as a view controller's. "bind": a
//   `BindingReceiver` class's `Int` bound to `age` from nonisolated code. "nested": a target on
//   `\.address?.city` of a `Person3`, with the city written. "observe closure": a token and a
//   closure that holds the sink strongly.
// - Swift Observation re-arm loop: `withObservationTracking` on `age`, then a write, per
//   iteration (the loop `@Observable` users write to hear every change).
// - OpenCombine: `@Published var age` with one `sink`.
// - Memory: glibc's `mallinfo2().uordblks` before and after creating 10^6 objects into an array
//   reserved beforehand, divided by 10^6; it includes malloc's rounding (a 48-byte object takes
//   a 64-byte chunk). The model has `String`, `Int` and `Double` properties.
// - Coalescing: 10 coalesced targets on one property, 1,000 writes inside one `coalesce` block.
//
// Relation controller (RelationBenchmarks.swift; `--relation` runs only this section, and
// `--backlog` only its backlog rows: K year changes made inside one `queue.sync` of a `.queue`
// controller's queue over 200 albums, drained after the block, per transaction). Sizes:
// small 10^4, middle 10^5, large 10^6 (10^3, 10^4, 2x10^4 with --quick); the printed lines name
// them. Every figure but appends and reorders is a median of interleaved rounds (7, 3 with
// --quick; building 3, 2 with --quick; churn 5, 3 with --quick) with its range, as above.
// - Data: `Album` (`@Observed year: Int`, `title: String`, `isLive: Bool`), identity-hashable,
//   owned by `Artist.albums: [Album]`. Years in 1950..<2025 and titles from a pool of 2,000, so
//   ties on the year are the rule and ties on both happen; one album in ten is live. A
//   SplitMix64 generator with fixed seeds makes every run use the same data.
// - The controller: `RelationController(\.albums, of: artist, filter: .matching { !$0.isLive },
//   sortedBy: [SortDescriptor(\.year), SortDescriptor(\.title)], sectionedBy: { $0.year / 10
//   * 10 }, observing: [\.title], delivery: .synchronous)`, one `onChange` receiver that counts
//   what it is handed (printed as checks).
// - The baseline a user would write by hand: `albums.enumerated().filter { !live }.sorted {
//   year, then title, then offset }` mapped to `ObjectIdentifier`s (sorting by year then title
//   also orders the decades). Building is compared with it alone; a move with it plus
//   `difference(from:)` the previous content; a 1% churn assignment with it plus
//   `difference(from:).inferringMoves()`. The same naive move with the controller's own
//   `SortDescriptor`s (`sorted(using:)`) is reported beside it, from one round.
// - Building: creating the controller over the albums of an existing artist (the release of
//   the previous one is a variant of its own, not counted), against the hand-written sort.
// - Memory: glibc's `mallinfo2()`, bytes in use including mmapped chunks (`uordblks + hblkhd`),
//   after creating the controller minus before, per album; the controller's own figure is made
//   without a sort (no kept keys), the kept keys' figure is the sorted controller's minus it.
// - A move: the `year` of a random shown album set to a random year (most writes move it),
//   2,000 per round: the write, the controller's work and the delivery. The limit line: a
//   hand-written order-statistics tree (OrderStatisticsTree.swift) over the same keys,
//   repositioning the album after the same write, 20,000 per round. Naive: 2 per round.
// - Append: `artist.insert(album, at: count, into: \.albums)` of a new shown album, 20 per
//   run, the median of 5 runs, timed from the relation's first observer (so the array copy
//   `insert` makes is not counted) to the end of the delivery.
// - 1% churn: an array with 1% of the albums removed and as many new ones (one in ten live)
//   inserted at random places, assigned to `albums` in turn with the original (both stay
//   alive), 2 per round; naive: 2 per round at 10^5, 1 at 10^6.
// - Whole reorders: one fixture per size (10^4 and 10^5; 10^3 and 10^4 with --quick), the
//   array reversed, then shuffled, then the controller reconfigured to the reverse order, then
//   as many albums appended as there are, each with `insert(_:at:into:)`, in one `coalesce`
//   block; each timed (the whole call, change set included), the median of 3 runs on fresh
//   fixtures, the two sizes in turn, before anything else of this section; the goal is the
//   growth from the small size to the middle one (O(n log n): at most 15x for 10x the
//   elements).

import Binding
import CHeapStats
import CollectionController
import Foundation
import Observation
import OpenCombine
import Synchronization

let quick = CommandLine.arguments.contains("--quick")
if CommandLine.arguments.contains("--prototype-index") {
  // The index prototype: the limit line's treap against an order-statistics B+tree with three
  // leaf layouts, the same repositions (the album written too) at three sizes, in interleaved
  // rounds.
  prototypeIndex()
  exit(0)
}
if CommandLine.arguments.contains("--profile-relation") {
  // For profilers: one controller over 10^4 albums (PROFILE_ALBUMS to change it), 2x10^5 year
  // changes (PROFILE_MOVES to change it).
  var rng = SplitMix64(seed: 1)
  let environment = ProcessInfo.processInfo.environment
  let albums = environment["PROFILE_ALBUMS"].flatMap { Int($0) } ?? 10_000
  let changes = environment["PROFILE_MOVES"].flatMap { Int($0) } ?? 200_000
  let fixture = try RelationFixture(makeAlbums(albums, &rng))
  let start = ContinuousClock.now
  moveBody(fixture, seed: 2)(changes)
  let elapsed = (ContinuousClock.now - start).components
  // The moves alone (the fixture's building is most of a run at 10^6).
  let nanoseconds = Double(elapsed.seconds) * 1e9 + Double(elapsed.attoseconds) / 1e9
  print(
    "\(fixture.receiver.moves) moves, \(Int(nanoseconds / Double(changes))) ns per year change")
  exit(0)
}
if CommandLine.arguments.contains("--profile-append") {
  // For profilers: one controller over 10^6 albums, 5 runs of 400 appends.
  var rng = SplitMix64(seed: 1)
  let fixture = try RelationFixture(makeAlbums(1_000_000, &rng))
  print(measureAppends(fixture, inserts: 400, seed: 2).nanoseconds)
  exit(0)
}
if CommandLine.arguments.contains("--profile-reorders") {
  // For profilers: the whole reorders over 10^5 albums, 3 times.
  for _ in 0..<3 { print(try measureReorders(100_000, seed: 9).map(\.seconds)) }
  exit(0)
}
if CommandLine.arguments.contains("--profile-sections") {
  // For profilers: 2x10^4 albums in one-element sections (PROFILE_SECTIONS to change it), all
  // removed in one assignment, all back, two in three removed, all back shuffled; prints the
  // four times.
  let count = ProcessInfo.processInfo.environment["PROFILE_SECTIONS"].flatMap { Int($0) } ?? 20_000
  let albums = (0..<count).map { Album(year: $0, isLive: false) }
  let artist = Artist(albums)
  let controller = try RelationController(
    \.albums, of: artist, sortedBy: [SortDescriptor(\.year)], sectionedBy: { $0.year },
    delivery: .synchronous)
  var rng = SplitMix64(seed: 5)
  let clock = ContinuousClock()
  let removal = clock.measure { artist.albums = [] }
  let insertion = clock.measure { artist.albums = albums }
  let removal2 = clock.measure { artist.albums = albums.filter { _ in rng.next() % 3 == 0 } }
  let insertion2 = clock.measure { artist.albums = albums.shuffled(using: &rng) }
  print(removal, insertion, removal2, insertion2, controller.sections.count)
  exit(0)
}
if CommandLine.arguments.contains("--profile-build") {
  // For profilers: building a controller over 10^6 albums.
  var rng = SplitMix64(seed: 1)
  let artist = Artist(makeAlbums(1_000_000, &rng))
  print(try makeController(artist).count)
  exit(0)
}
if CommandLine.arguments.contains("--profile-replace") {
  // For profilers: one controller over 10^5 albums, whole-array assignments with 1% churn.
  var rng = SplitMix64(seed: 1)
  let albums = makeAlbums(100_000, &rng)
  let fixture = try RelationFixture(albums)
  let other = churned(albums, &rng)
  replacementBody(fixture, with: other)(
    ProcessInfo.processInfo.environment["PROFILE_ASSIGNMENTS"].flatMap { Int($0) } ?? 8)
  print(fixture.receiver.changeSets)
  exit(0)
}
/// For profilers: a model with one registration made by `register`, written `count` times.
@MainActor func profileWrites(_ count: Int, _ register: (Observed3, Sink) -> Void) -> Never {
  let model = Observed3()
  let sink = Sink()
  register(model, sink)
  setObserved(model, count)
  print(sink.total)
  exit(0)
}
if CommandLine.arguments.contains("--profile-target") {
  profileWrites(20_000_000, addSyncTarget)  // one synchronous target
}
if CommandLine.arguments.contains("--profile-main-actor") {
  profileWrites(5_000_000, addMainActorTarget)  // registered from the main actor, written on it
}
if CommandLine.arguments.contains("--profile-bind") {
  let gauge = Gauge()  // kept alive by this scope: a binding ends with its receiver
  profileWrites(5_000_000) { model, _ in addSyncBinding(gauge, model) }
}
if CommandLine.arguments.contains("--profile-nested") {
  // For profilers: one target on `\.address?.city`, 5x10^6 writes of the city.
  let person = Person3()
  let address = Address3()
  person.address = address
  let sink = Sink()
  addNestedTarget(person, sink)
  setAddress(address, 5_000_000)
  print(sink.total)
  exit(0)
}
let scale = quick ? 10 : 1
let n = 2_000_000 / scale

var rows: [Row] = []

@MainActor func add(_ name: String, _ value: String, goal: String = "report", met: Bool? = nil) {
  rows.append(Row(name: name, value: value, goal: goal, met: met))
  print(
    String(format: "%-78@ %14@  %@", name as NSString, value as NSString, goal as NSString)
      + (met.map { $0 ? "  ok" : "  MISSED" } ?? ""))
  fflush(nil)
}

/// Adds a line for `value / baseline`, showing both figures, checked against an upper limit
/// (`atMost`), a lower one (`atLeast`), or none (a figure to report).
@MainActor func addRatio(
  _ name: String, _ value: Double, over baseline: Double, atMost: Double? = nil,
  atLeast: Double? = nil, format: (Double) -> String = ns
) {
  let quotient = value / baseline
  let shown = ratio(quotient) + " (\(format(value)) vs \(format(baseline)))"
  if let atMost {
    let limit = atMost == atMost.rounded() ? "\(Int(atMost))" : "\(atMost)"
    add(name, shown, goal: "<= \(limit)x", met: quotient <= atMost)
  } else if let atLeast {
    add(name, shown, goal: ">= \(Int(atLeast))x", met: quotient >= atLeast)
  } else {
    add(name, shown)
  }
}

if CommandLine.arguments.contains("--relation") {
  // Only the relation controller's section (its own full-size run).
  try relationBenchmarks()
  try backlogBenchmarks()
  exit(0)
}
if CommandLine.arguments.contains("--backlog") {
  try backlogBenchmarks()
  exit(0)
}

// MARK: Binding

// Each operation is one call of an `@inline(never)` function, so that the optimiser can neither
// merge the stores of a loop nor hoist a load out of it; the call overhead is the same on both
// sides of every ratio.
@inline(never) func set(_ o: Plain3, _ v: Int) { o.age = v }
@inline(never) func set(_ o: Observed3, _ v: Int) { o.age = v }
@inline(never) func set(_ o: DidSet3, _ v: Int) { o.age = v }
@inline(never) func set(_ o: WeakTargetDidSet3, _ v: Int) { o.age = v }
@inline(never) func set(_ o: WeakTargetsDidSet3, _ v: Int) { o.age = v }
@inline(never) func set(_ o: SwiftObservable3, _ v: Int) { o.age = v }
@inline(never) func set(_ o: Published3, _ v: Int) { o.age = v }
@inline(never) func set(_ o: Address3, _ v: Int) { o.city = v }
@inline(never) func get(_ o: Plain3) -> Int { o.age }
@inline(never) func get(_ o: Observed3) -> Int { o.age }

@inline(never) func setPlain(_ o: Plain3, _ n: Int) { for i in 0..<n { set(o, i) } }
@inline(never) func setObserved(_ o: Observed3, _ n: Int) { for i in 0..<n { set(o, i) } }
@inline(never) func setAddress(_ o: Address3, _ n: Int) { for i in 0..<n { set(o, i) } }
// The getters cycle through 64 objects so that the optimiser cannot hoist a read out of the loop.
@inline(never) func getPlain(_ o: [Plain3], _ n: Int) -> Int {
  var s = 0
  for i in 0..<n { s &+= get(o[i & 63]) }
  return s
}
@inline(never) func getObserved(_ o: [Observed3], _ n: Int) -> Int {
  var s = 0
  for i in 0..<n { s &+= get(o[i & 63]) }
  return s
}
@inline(never) func setDidSet(_ o: DidSet3, _ n: Int) { for i in 0..<n { set(o, i) } }
@inline(never) func setWeakTargetDidSet(_ o: WeakTargetDidSet3, _ n: Int) {
  for i in 0..<n { set(o, i) }
}
@inline(never) func setWeakTargetsDidSet(_ o: WeakTargetsDidSet3, _ n: Int) {
  for i in 0..<n { set(o, i) }
}
@inline(never) func setSwiftObservable(_ o: SwiftObservable3, _ n: Int) {
  for i in 0..<n { set(o, i) }
}
@inline(never) func setPublished(_ o: Published3, _ n: Int) { for i in 0..<n { set(o, i) } }

/// Registers a closure observer from nonisolated code (synchronous delivery).
nonisolated func addSyncObserver(_ model: Observed3, _ sink: Sink) -> ObservationToken {
  model.observe(\.age) { change in sink.total &+= change.newValue &- change.oldValue }
}

/// Registers a target from nonisolated code, so that delivery is synchronous on the mutating
/// thread.
nonisolated func addSyncTarget(_ model: Observed3, _ sink: Sink) {
  model.addTarget(sink, for: \.age) { sink, change in
    sink.total &+= change.newValue &- change.oldValue
  }
}

/// Registers a target from the main actor, as a view controller does: delivery is on the main
/// actor, synchronous when the write happens on the main thread (as it does here).
@MainActor func addMainActorTarget(_ model: Observed3, _ sink: Sink) {
  model.addTarget(sink, for: \.age) { sink, change in
    sink.total &+= change.newValue &- change.oldValue
  }
}

/// Registers a target on a nested path from nonisolated code.
nonisolated func addNestedTarget(_ model: Person3, _ sink: Sink) {
  model.addTarget(sink, for: \.address?.city) { sink, change in
    sink.total &+= (change.newValue ?? 0) &- (change.oldValue ?? 0)
  }
}

/// Binds a gauge to `age` from nonisolated code (synchronous delivery).
nonisolated func addSyncBinding(_ gauge: Gauge, _ model: Observed3) {
  gauge.bind(\.value, to: model, \.age)
}

let rounds = quick ? 3 : 11
let fast = 2_000_000 / scale
let slow = 200_000 / scale
let bench = Rounds()

let plain = Plain3()
let observed = Observed3()
let plainSet = bench.add(iterations: fast) { setPlain(plain, $0) }
let observedSet = bench.add(iterations: fast) { setObserved(observed, $0) }
let plains = (0..<64).map { _ in Plain3() }
let observeds = (0..<64).map { _ in Observed3() }
let plainGet = bench.add(iterations: fast) { blackHole(getPlain(plains, $0)) }
let observedGet = bench.add(iterations: fast) { blackHole(getObserved(observeds, $0)) }

let didSet = DidSet3()
let didSetSink = Sink()
didSet.onAge = opaqueAdder(didSetSink)
let didSetCost = bench.add(iterations: slow) { setDidSet(didSet, $0) }

// The floor line: a hand-written `didSet` that loads the weakly held target and hands it a
// change value (object, key path, old, new), with one target and with ten.
let floorModel = WeakTargetDidSet3()
let floorSink = Sink()
floorModel.target = floorSink
floorModel.action = opaqueTargetAction()
let floorCost = bench.add(iterations: slow) { setWeakTargetDidSet(floorModel, $0) }
let floorTenModel = WeakTargetsDidSet3()
let floorTenSinks = (0..<10).map { _ in Sink() }
floorTenModel.targets = floorTenSinks.map { WeakSink($0) }
floorTenModel.action = opaqueTargetAction()
let floorTenCost = bench.add(iterations: slow / 10) { setWeakTargetsDidSet(floorTenModel, $0) }

/// A model with `count` targets of one kind, and the variant that writes it.
@MainActor func targets(
  _ count: Int, iterations: Int, _ register: (Observed3, Sink) -> Void
) -> (Int, [Sink]) {
  let model = Observed3()
  let sinks = (0..<count).map { _ in Sink() }
  for sink in sinks { register(model, sink) }
  return (bench.add(iterations: iterations) { setObserved(model, $0) }, sinks)
}
let (targetCost, targetSinks) = targets(1, iterations: slow, addSyncTarget)
let (targetTenCost, targetTenSinks) = targets(10, iterations: slow / 10, addSyncTarget)
let (mainActorCost, mainActorSinks) = targets(1, iterations: slow, addMainActorTarget)
let (mainActorTenCost, mainActorTenSinks) = targets(
  10, iterations: slow / 10, addMainActorTarget)

let observedByClosure = Observed3()
let closureSink = Sink()
let closureToken = addSyncObserver(observedByClosure, closureSink)
let closureCost = bench.add(iterations: slow) { setObserved(observedByClosure, $0) }

let boundModel = Observed3()
let gauge = Gauge()
addSyncBinding(gauge, boundModel)
let bindCost = bench.add(iterations: slow) { setObserved(boundModel, $0) }
let boundTenModel = Observed3()
let gauges = (0..<10).map { _ in Gauge() }
for gauge in gauges { addSyncBinding(gauge, boundTenModel) }
let bindTenCost = bench.add(iterations: slow / 10) { setObserved(boundTenModel, $0) }

let person = Person3()
let address = Address3()
person.address = address
let nestedSink = Sink()
addNestedTarget(person, nestedSink)
let nestedCost = bench.add(iterations: slow) { setAddress(address, $0) }
let personTen = Person3()
let addressTen = Address3()
personTen.address = addressTen
let nestedTenSinks = (0..<10).map { _ in Sink() }
for sink in nestedTenSinks { addNestedTarget(personTen, sink) }
let nestedTenCost = bench.add(iterations: slow / 10) { setAddress(addressTen, $0) }

let tracked = SwiftObservable3()
final class Counter: Sendable { let value = Atomic<Int>(0) }
func rearm(_ model: SwiftObservable3, _ counter: Counter) {
  withObservationTracking {
    _ = model.age
  } onChange: {
    counter.value.add(1, ordering: .relaxed)
  }
}
let counter = Counter()
let rearmCost = bench.add(iterations: slow / 10) { count in
  for i in 0..<count {
    rearm(tracked, counter)
    tracked.age = i
  }
}

let published = Published3()
let publishedSink = Sink()
let cancellable = published.$age.sink { publishedSink.total &+= $0 }
let publishedCost = bench.add(iterations: slow) { setPublished(published, $0) }

let swiftObservable = SwiftObservable3()
let swiftObservableSet = bench.add(iterations: fast) { setSwiftObservable(swiftObservable, $0) }

bench.run(rounds)

/// Adds the line `value / baseline` from the rounds: the median ratio, its range over the
/// rounds, and both medians; checked against an upper (`atMost`) or lower (`atLeast`) limit.
@MainActor func addRounds(
  _ name: String, _ value: Int, over baseline: Int, in rounds: Rounds = bench,
  atMost: Double? = nil, atLeast: Double? = nil, format: (Double) -> String = ns
) {
  let spread = rounds.ratios(value, over: baseline)
  let shown =
    ratio(spread.median) + " [\(ratio(spread.low))-\(ratio(spread.high))] ("
    + "\(format(rounds.median(value))) vs \(format(rounds.median(baseline))))"
  if let atMost {
    let limit = atMost == atMost.rounded() ? "\(Int(atMost))" : "\(atMost)"
    add(name, shown, goal: "<= \(limit)x", met: spread.median <= atMost)
  } else if let atLeast {
    add(name, shown, goal: ">= \(Int(atLeast))x", met: spread.median >= atLeast)
  } else {
    add(name, shown)
  }
}

print("(medians of \(rounds) interleaved rounds, [lowest-highest] ratio of a round)")
addRounds(
  "unobserved @Observed set / plain stored set (Int)", observedSet, over: plainSet, atMost: 1.5)
addRounds("untracked @Observed get / plain get (Int)", observedGet, over: plainGet, atMost: 1.5)
addRounds(
  "floor line: didSet + weak target + change value / didSet + stored closure", floorCost,
  over: didSetCost)
addRounds("one target / the floor line", targetCost, over: floorCost, atMost: 1.5)
addRounds(
  "ten targets / the floor line with ten targets", targetTenCost, over: floorTenCost, atMost: 1.5)
addRounds(
  "main-actor target, written on main / nonisolated target", mainActorCost, over: targetCost,
  atMost: 1.2)
addRounds("  the same with ten targets", mainActorTenCost, over: targetTenCost, atMost: 1.2)
addRounds("bind / one target", bindCost, over: targetCost, atMost: 1.3)
addRounds("  ten bindings / ten targets", bindTenCost, over: targetTenCost, atMost: 1.3)
addRounds("target on \\.address?.city / one target", nestedCost, over: targetCost, atMost: 2)
addRounds("  ten of them / ten targets", nestedTenCost, over: targetTenCost, atMost: 2)
addRounds("observe closure / one target", closureCost, over: targetCost)
addRounds("OpenCombine @Published + sink / one target", publishedCost, over: targetCost, atLeast: 4)
addRounds("Observation arm-then-write loop / one target", rearmCost, over: targetCost, atLeast: 12)
addRounds(
  "@Observable unobserved set / unobserved @Observed set", swiftObservableSet, over: observedSet)
blackHole(closureToken)
blackHole(cancellable)

// MARK: Memory

/// Bytes allocated per object when 10^6 objects are created into a reserved array, read from
/// glibc's `mallinfo2()` (bytes in use), so malloc's own rounding is included.
func bytesPerObject<T>(_ make: () -> T) -> Double {
  let count = 1_000_000 / scale
  var objects: [T] = []
  objects.reserveCapacity(count)
  let before = heap_bytes_in_use()
  for _ in 0..<count { objects.append(make()) }
  let after = heap_bytes_in_use()
  blackHole(objects)
  return Double(after - before) / Double(count)
}
let plainBytes = bytesPerObject { Plain3() }
let observedBytes = bytesPerObject { Observed3() }
let swiftObservableBytes = bytesPerObject { SwiftObservable3() }
addRatio(
  "memory, 3 properties nobody observes: @Observed / plain class", observedBytes,
  over: plainBytes, atMost: 1.5, format: bytes)
addRatio(
  "memory: Swift @Observable / plain class", swiftObservableBytes, over: plainBytes,
  format: bytes)

// MARK: Coalescing

nonisolated func addCoalescedTargets(_ model: Observed3, _ sinks: [Sink]) {
  for sink in sinks {
    model.addTarget(sink, for: \.age, options: .coalesced) { sink, _ in sink.total &+= 1 }
  }
}
let coalescedModel = Observed3()
let coalescedSinks = (0..<10).map { _ in Sink() }
addCoalescedTargets(coalescedModel, coalescedSinks)
let blocks = 2_000 / scale
let blockCost = measure(iterations: blocks) { count in
  for block in 0..<count {
    coalesce {
      for edit in 0..<1_000 { set(coalescedModel, block &* 1_000 &+ edit &+ 1) }
    }
  }
}
let deliveries = coalescedSinks.map(\.total).reduce(0, +)
let blocksRun = blocks * 5
add(
  "10 targets, 1,000 edits in one coalesce block: time per block",
  String(format: "%.1f us", blockCost / 1_000))
add(
  "  deliveries per target per block (expect 1)",
  String(format: "%.2f", Double(deliveries) / Double(10 * blocksRun)), goal: "1",
  met: deliveries == 10 * blocksRun)

blackHole(
  (
    didSetSink.total, targetSinks, targetTenSinks, mainActorSinks, mainActorTenSinks, gauge,
    gauges, nestedSink, nestedTenSinks, floorSink.total, floorTenSinks,
    counter.value.load(ordering: .relaxed), closureSink, publishedSink
  ))

// MARK: Relation controller

/// "10^4" or "5x10^5" for a digit times a power of ten, the number otherwise.
func size(_ count: Int) -> String {
  var power = 0
  var rest = count
  while rest >= 10 && rest % 10 == 0 {
    rest /= 10
    power += 1
  }
  if power == 0 || rest >= 10 { return "\(count)" }
  return rest == 1 ? "10^\(power)" : "\(rest)x10^\(power)"
}

/// Formats nanoseconds in a readable unit.
func duration(_ nanoseconds: Double) -> String {
  switch nanoseconds {
  case ..<1_000: String(format: "%.0f ns", nanoseconds)
  case ..<1_000_000: String(format: "%.2f us", nanoseconds / 1e3)
  case ..<1_000_000_000: String(format: "%.2f ms", nanoseconds / 1e6)
  default: String(format: "%.2f s", nanoseconds / 1e9)
  }
}

@MainActor func relationBenchmarks() throws {
  let (small, middle, large) = quick ? (1_000, 10_000, 20_000) : (10_000, 100_000, 1_000_000)
  let roundCount = quick ? 3 : 7
  var rng = SplitMix64(seed: 1)

  // The limit line is checked against `sorted(by:)` before it is measured.
  limitTreeSelfCheck()
  add("relation: limit line self-check (2,000 repositions against sorted(by:))", "passed")

  // Whole reorders first, before the large fixtures below fill the memory: O(n log n), so
  // 10x the elements may cost at most 15x the time.
  // Each reorder changes its fixture, so each run makes fresh ones: medians of 3 runs, the
  // two sizes in turn (interleaved, so that a disturbance of the machine hits both).
  typealias Reorders = [(name: String, seconds: Double)]
  var smallRuns: [Reorders] = []
  var middleRuns: [Reorders] = []
  for _ in 0..<3 {
    smallRuns.append(try measureReorders(small, seed: 9))
    middleRuns.append(try measureReorders(middle, seed: 9))
  }
  func medians(_ runs: [Reorders]) -> Reorders {
    runs[0].indices.map { i in (runs[0][i].name, Spread(runs.map { $0[i].seconds }).median) }
  }
  let smallReorders = medians(smallRuns)
  let middleReorders = medians(middleRuns)
  for (smallOne, middleOne) in zip(smallReorders, middleReorders) {
    let growth = middleOne.seconds / smallOne.seconds
    add(
      "relation: \(smallOne.name), N=\(size(middle)) / N=\(size(small))",
      ratio(growth)
        + String(format: " (%.3f s vs %.3f s)", middleOne.seconds, smallOne.seconds),
      goal: "<= 15x", met: growth <= 15)
  }

  // Building, against the hand-written filter + sort of the same array.
  do {
    let albums = makeAlbums(large, &rng)
    let artist = Artist(albums)
    let build = Rounds()
    var built: AlbumController?  // the controller of the last round, released by the next variant
    var failure: (any Error)?
    let ours = build.add(iterations: 1) { _ in
      do { built = try makeController(artist) } catch { failure = error }
    }
    // Releasing the controller is timed apart, so that neither figure includes it.
    _ = build.add(iterations: 1) { _ in
      blackHole(built)
      built = nil
    }
    let naive = build.add(iterations: 1) { _ in blackHole(naiveContent(albums)) }
    build.run(quick ? 2 : 3)
    if let failure { throw failure }
    addRounds(
      "relation: building the controller / hand-written filter + sorted(by:), N=\(size(large))",
      ours, over: naive, in: build, atMost: 3, format: duration)
    let memory = try controllerBytesPerElement(albums)
    add(
      "relation: controller's own memory per element (unsorted), N=\(size(large))",
      String(format: "%.0f B", memory.unsorted), goal: "<= 100 B", met: memory.unsorted <= 100)
    add(
      "  the kept sort keys (year: Int, title: String) per element",
      String(format: "%.0f B", memory.sorted - memory.unsorted))
  }

  // Moves: the same random year changes on separate copies of the same albums.
  func albums(_ count: Int, seed: UInt64) -> [Album] {
    var rng = SplitMix64(seed: seed)
    return makeAlbums(count, &rng)
  }
  let moves = Rounds()
  let smallFixture = try RelationFixture(albums(small, seed: 2))
  let middleFixture = try RelationFixture(albums(middle, seed: 3))
  let largeFixture = try RelationFixture(albums(large, seed: 4))
  let appends = quick ? 5 : 20
  let smallAppend = measureAppends(smallFixture, inserts: appends, seed: 7)
  let largeAppend = measureAppends(largeFixture, inserts: appends, seed: 7)
  let appendRatio = largeAppend.nanoseconds / smallAppend.nanoseconds
  add(
    "relation: controller's work for one append, N=\(size(large)) / N=\(size(small))",
    ratio(appendRatio)
      + " (\(duration(largeAppend.nanoseconds)) vs \(duration(smallAppend.nanoseconds)))",
    goal: "<= 2x", met: appendRatio <= 2)
  add(
    "  change sets, inserts per append (expect 1): N=\(size(small)); N=\(size(large))",
    String(
      format: "%.2f, %.2f; %.2f, %.2f", smallAppend.changeSets, smallAppend.inserts,
      largeAppend.changeSets, largeAppend.inserts),
    goal: "1",
    met: [smallAppend.changeSets, smallAppend.inserts, largeAppend.changeSets, largeAppend.inserts]
      .allSatisfy { $0 == 1 })

  // Our moves and the limit line's make the same number of changes per round, so that both
  // start each round from the caches the other variants left (the naive path's sorts evict
  // them) equally often.
  let changes = quick ? 2_000 : 20_000
  let smallMove = moves.add(iterations: changes, moveBody(smallFixture, seed: 5))
  let middleMove = moves.add(iterations: changes, moveBody(middleFixture, seed: 5))
  let largeMove = moves.add(iterations: changes, moveBody(largeFixture, seed: 5))
  let middleLimit = moves.add(
    iterations: changes, limitMoveBody(albums(middle, seed: 3), seed: 5))
  let largeLimit = moves.add(
    iterations: changes, limitMoveBody(albums(large, seed: 4), seed: 5))
  let middleNaive = moves.add(
    iterations: 2, naiveMoveBody(albums(middle, seed: 3), seed: 5, content: naiveContent))
  let receivers = [smallFixture, middleFixture, largeFixture].map(\.receiver)
  let before = receivers.map { ($0.changeSets, $0.moves + $0.updates) }
  moves.run(roundCount)
  addRounds(
    "relation: naive hand-written filter + sort + difference / our move, N=\(size(middle))",
    middleNaive, over: middleMove, in: moves, atLeast: 5_000, format: duration)
  addRounds(
    "relation: our move / the limit line (order-statistics tree), N=\(size(middle))",
    middleMove, over: middleLimit, in: moves, atMost: 3, format: duration)
  addRounds(
    "relation: our move / the limit line (order-statistics tree), N=\(size(large))",
    largeMove, over: largeLimit, in: moves, atMost: 3, format: duration)
  addRounds(
    "relation: our move, N=\(size(large)) / N=\(size(small))", largeMove, over: smallMove,
    in: moves, atMost: 2, format: duration)
  // A year that leaves the album in place is an update (the sort reads it); every change set
  // is one move or one update.
  let checks = zip(receivers, before).map { receiver, before in
    (receiver.changeSets - before.0, receiver.moves + receiver.updates - before.1)
  }
  add(
    "  moves and updates per change set (expect 1): N=\(size(small)); \(size(middle)); "
      + "\(size(large))",
    checks.map { String(format: "%.2f", Double($0.1) / Double(max($0.0, 1))) }
      .joined(separator: "; "),
    goal: "1", met: checks.allSatisfy { $0.0 > 0 && $0.0 == $0.1 })

  // The naive path with the controller's own SortDescriptors (about 1 µs a comparison here):
  // one round, it is slow.
  let descriptorMoves = Rounds()
  let ourMove = descriptorMoves.add(iterations: changes, moveBody(middleFixture, seed: 6))
  let descriptorNaive = descriptorMoves.add(
    iterations: 1,
    naiveMoveBody(albums(middle, seed: 3), seed: 6, content: naiveDescriptorContent))
  descriptorMoves.run(1)
  addRounds(
    "  the naive path sorting with the same SortDescriptors instead / our move",
    descriptorNaive, over: ourMove, in: descriptorMoves, format: duration)

  // Whole-relation assignments with 1% churn.
  let churn = Rounds()
  var lines: [(String, Int, Int)] = []
  for (count, fixture) in [(middle, middleFixture), (large, largeFixture)] {
    let original = fixture.artist.albums
    let other = churned(original, &rng)
    let ours = churn.add(iterations: 2, replacementBody(fixture, with: other))
    let naive = churn.add(
      iterations: count == large ? 1 : 2,
      naiveReplacementBody(original, other, content: naiveContent))
    lines.append(("N=\(size(count))", naive, ours))
  }
  churn.run(quick ? 3 : 5)
  for (sizeName, naive, ours) in lines {
    addRounds(
      "relation: 1% churn assignment, naive hand-written + inferringMoves / ours, \(sizeName)",
      naive, over: ours, in: churn, atLeast: 10, format: duration)
  }
}
/// Backlogs: writes made while the delivery queue is busy drain after, one transaction each;
/// each takes only its own elements, so the time per transaction does not grow with the
/// backlog. Against the same writes to a synchronous controller over the same albums.
@MainActor func backlogBenchmarks() throws {
  func albums(_ count: Int, seed: UInt64) -> [Album] {
    var rng = SplitMix64(seed: seed)
    return makeAlbums(count, &rng)
  }
  let count = 200
  let (shortBacklog, longBacklog) = quick ? (1_000, 20_000) : (1_000, 100_000)
  let backlogs = Rounds()
  let short = backlogs.add(
    iterations: longBacklog,
    backlogBody(try BacklogFixture(albums(count, seed: 8)), backlog: shortBacklog, seed: 5))
  let long = backlogs.add(
    iterations: longBacklog,
    backlogBody(try BacklogFixture(albums(count, seed: 8)), backlog: longBacklog, seed: 5))
  // Kept by this scope: `moveBody` holds the albums, not the fixture and its controller.
  let synchronousFixture = try RelationFixture(albums(count, seed: 8))
  let synchronous = backlogs.add(
    iterations: longBacklog, moveBody(synchronousFixture, seed: 5))
  backlogs.run(quick ? 3 : 5)
  let moved = synchronousFixture.receiver.changeSets
  precondition(moved > 0, "the synchronous controller heard the moves")
  addRounds(
    "relation: a queued backlog's time per transaction, K=\(size(longBacklog)) / "
      + "K=\(size(shortBacklog)), N=\(count)",
    long, over: short, in: backlogs, atMost: 2, format: duration)
  addRounds(
    "  a transaction of a K=\(size(longBacklog)) backlog / a synchronous move, N=\(count)",
    long, over: synchronous, in: backlogs, format: duration)
}

// `--binding` runs only the section above.
if !CommandLine.arguments.contains("--binding") {
  try relationBenchmarks()
  try backlogBenchmarks()
}
