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
// Relation controller (RelationBenchmarks.swift; `--relation` runs only this section). Sizes:
// small 10^4, middle 10^5, large 10^6 (10^3, 10^4, 10^4 with --quick); the printed lines name
// them.
// - Models: `Album` (`@Observed year: Int`, `title: String`, `isLive: Bool`), identity-
//   hashable, owned by `Artist.albums: [Album]`. Years are random in 0..<2^40 (ties are rare),
//   one album in ten is live; a SplitMix64 generator with fixed seeds makes every run use the
//   same data. The controller: `RelationController(\.albums, of: artist, filter: { !$0.isLive },
//   sortedBy: [SortDescriptor(\.year)], observing: [\.title], delivery: .synchronous)` with
//   one `onChange` receiver that counts what it is handed (printed as checks).
// - Year change: the `year` of a random shown album set to a random year (so it moves), 2,000
//   writes per run, best of 5 runs, time per write (the write, the controller's work and the
//   delivery). Naive: the same writes on albums no controller observes, each followed by the
//   whole content recomputed, `albums.filter { !$0.isLive }.sorted(using: [SortDescriptor(
//   \.year)])` (stable: ties in source order) mapped to `ObjectIdentifier`s, and its
//   `difference(from:)` the previous content; 2 writes per run, best of 5. The goal line sorts
//   with the controller's own configuration (the same `SortDescriptor`, about 550 ns a
//   comparison on Linux); a second line reports the naive path with a hand-written comparison
//   of the years and source indexes instead, the fastest a naive path can be.
// - Append: `artist.insert(album, at: count, into: \.albums)` of a new shown album, 20 per run,
//   best of 5. The whole call is timed: the array's own append (in place: nothing else holds
//   the array, as the controller keeps no copy; a run in which the array grows its capacity
//   is not the best of 5), the controller's work and the delivery to the receiver.
// - 1% churn: an array with 1% of the albums removed and as many new ones (one in ten live)
//   inserted at random places, assigned to `albums` in turn with the original (each assignment
//   is 1% churn; both arrays stay alive): time per assignment, 2 per run, best of 3. Naive: the
//   naive content of the assigned array (both sorts, as above), `difference(from:)` the
//   previous content, `.inferringMoves()`; 2 per run, best of 3.
// - Whole reorders: one fixture per size (10^4 and 10^5; 10^3 and 10^4 with --quick), the
//   array reversed, then shuffled, then the controller reconfigured to the reverse order, then
//   as many albums appended as there are, each with `insert(_:at:into:)`, in one `coalesce`
//   block; each timed once (the whole call, change set included); the goal is the growth from the small
//   size to the middle one (O(n log n): at most 15x for 10x the elements).
// - Memory: glibc's `mallinfo2()`, bytes in use including mmapped chunks (`uordblks + hblkhd`;
//   the controller's large tables are mmapped), after creating the controller minus before,
//   divided by the number of albums; the models and the array exist before. Building time is
//   the same creation, timed.

import Binding
import CHeapStats
import CollectionController
import Foundation
import Observation
import OpenCombine
import Synchronization

let quick = CommandLine.arguments.contains("--quick")
if CommandLine.arguments.contains("--profile-relation") {
  // For profilers: one controller over 10^4 albums, 100,000 year changes.
  var rng = SplitMix64(seed: 1)
  let fixture = try RelationFixture(makeAlbums(10_000, &rng))
  print(measureMoves(fixture, changes: 20_000, seed: 2).nanoseconds)
  exit(0)
}
if CommandLine.arguments.contains("--profile-append") {
  // For profilers: one controller over 2x10^5 albums, appends.
  var rng = SplitMix64(seed: 1)
  let fixture = try RelationFixture(makeAlbums(200_000, &rng))
  print(measureAppends(fixture, inserts: 400, seed: 2).nanoseconds)
  exit(0)
}
if CommandLine.arguments.contains("--profile-replace") {
  // For profilers: one controller over 10^5 albums, whole-array assignments with 1% churn.
  var rng = SplitMix64(seed: 1)
  let albums = makeAlbums(100_000, &rng)
  let fixture = try RelationFixture(albums)
  let other = churned(albums, &rng)
  print(measureReplacements(fixture, with: other, replacements: 4, repetitions: 2).nanoseconds)
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
  _ name: String, _ value: Int, over baseline: Int, atMost: Double? = nil,
  atLeast: Double? = nil
) {
  let spread = bench.ratios(value, over: baseline)
  let shown =
    ratio(spread.median) + " [\(ratio(spread.low))-\(ratio(spread.high))] ("
    + "\(ns(bench.median(value))) vs \(ns(bench.median(baseline))))"
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
  // Fine-grained figures compare a small and a large relation; the naive comparisons use the
  // middle one.
  let (small, middle, large) = quick ? (1_000, 10_000, 10_000) : (10_000, 100_000, 1_000_000)
  let changes = 2_000
  let appends = 20
  var rng = SplitMix64(seed: 1)

  let (smallMove, smallAppend) = try {
    let fixture = try RelationFixture(makeAlbums(small, &rng))
    return (
      measureMoves(fixture, changes: changes, seed: 2),
      measureAppends(fixture, inserts: appends, seed: 3)
    )
  }()
  let (largeMove, largeAppend, largeFixtureFacts) = try {
    let fixture = try RelationFixture(makeAlbums(large, &rng))
    return (
      measureMoves(fixture, changes: changes, seed: 2),
      measureAppends(fixture, inserts: appends, seed: 3),
      (fixture.buildSeconds, fixture.bytesPerElement)
    )
  }()
  let moveRatio = largeMove.nanoseconds / smallMove.nanoseconds
  add(
    "relation: year change moving one album, per change, N=\(size(large)) / N=\(size(small))",
    ratio(moveRatio)
      + " (\(duration(largeMove.nanoseconds)) vs \(duration(smallMove.nanoseconds)))",
    goal: "<= 2x", met: moveRatio <= 2)
  // A random year that leaves the album in place changes nothing, so a few writes have no
  // change set; every change set must be exactly one move.
  add(
    "  moves per change set (expect 1), change sets per write: N=\(size(small)); N=\(size(large))",
    String(
      format: "%.2f, %.4f; %.2f, %.4f", smallMove.moves / smallMove.changeSets,
      smallMove.changeSets, largeMove.moves / largeMove.changeSets, largeMove.changeSets),
    goal: "1",
    met: smallMove.moves == smallMove.changeSets && largeMove.moves == largeMove.changeSets)
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
  add(
    "relation: memory the controller adds per element, N=\(size(large))",
    String(format: "%.0f B", largeFixtureFacts.1), goal: "<= 100 B",
    met: largeFixtureFacts.1 <= 100)
  add(
    "relation: building the controller, N=\(size(large))",
    String(format: "%.2f s", largeFixtureFacts.0))

  let albums = makeAlbums(middle, &rng)
  let naiveMove = measureNaiveMoves(albums, changes: 2, seed: 4, sort: .sameDescriptors)
  let handWrittenMove = measureNaiveMoves(albums, changes: 2, seed: 4, sort: .handWritten)
  let fixture = try RelationFixture(albums)
  let middleMove = measureMoves(fixture, changes: changes, seed: 4)
  let naiveRatio = naiveMove.nanoseconds / middleMove.nanoseconds
  let ours = duration(middleMove.nanoseconds)
  let naiveMoveLine: String = String(format: "%.0fx", naiveRatio)
  add(
    "relation: naive filter + sort (same SortDescriptor) + difference / our change, N=\(size(middle))",
    "\(naiveMoveLine) (\(duration(naiveMove.nanoseconds)) vs \(ours))",
    goal: ">= 5,000x", met: naiveRatio >= 5_000)
  let handWrittenMoveLine: String = String(
    format: "%.0fx", handWrittenMove.nanoseconds / middleMove.nanoseconds)
  add(
    "  the same with a hand-written year comparison instead of the SortDescriptor",
    "\(handWrittenMoveLine) (\(duration(handWrittenMove.nanoseconds)) vs \(ours))")
  let other = churned(albums, &rng)
  let naiveReplacement = measureNaiveReplacements(
    albums, other, replacements: 2, repetitions: 3, sort: .sameDescriptors)
  let handWrittenReplacement = measureNaiveReplacements(
    albums, other, replacements: 2, repetitions: 3, sort: .handWritten)
  let replacement = measureReplacements(fixture, with: other, replacements: 2, repetitions: 3)
  let replacementRatio = naiveReplacement.nanoseconds / replacement.nanoseconds
  let oursReplacing = duration(replacement.nanoseconds)
  let replacementLine: String = ratio(replacementRatio)
  add(
    "relation: assigning with 1% churn, naive (same SortDescriptor) / ours, N=\(size(middle))",
    "\(replacementLine) (\(duration(naiveReplacement.nanoseconds)) vs \(oursReplacing))",
    goal: ">= 10x", met: replacementRatio >= 10)
  let handWrittenReplacementLine: String = ratio(
    handWrittenReplacement.nanoseconds / replacement.nanoseconds)
  let handWrittenReplacementTime = duration(handWrittenReplacement.nanoseconds)
  add(
    "  the same with a hand-written year comparison instead of the SortDescriptor",
    "\(handWrittenReplacementLine) (\(handWrittenReplacementTime) vs \(oursReplacing))")
  // Whole reorders: O(n log n), so 10x the elements may cost at most 15x the time.
  let smallReorders = try measureReorders(small, seed: 9)
  let middleReorders = try measureReorders(middle, seed: 9)
  for (smallOne, middleOne) in zip(smallReorders, middleReorders) {
    let growth = middleOne.seconds / smallOne.seconds
    add(
      "relation: \(smallOne.name), N=\(size(middle)) / N=\(size(small))",
      ratio(growth)
        + String(format: " (%.3f s vs %.3f s)", middleOne.seconds, smallOne.seconds),
      goal: "<= 15x", met: growth <= 15)
  }
}
// `--binding` runs only the section above.
if !CommandLine.arguments.contains("--binding") { try relationBenchmarks() }
