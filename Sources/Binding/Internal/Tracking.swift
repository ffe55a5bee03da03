import Synchronization

/// The number of threads currently resolving a key path by access tracking.
///
/// `@Observed` getters read this with a relaxed load before anything else, so an untracked read
/// costs one load and a branch; only when some thread is tracking do getters look up the
/// thread-local recorder.
@usableFromInline
let _trackingThreads = Atomic<Int>(0)

/// One `@Observed` property read while a recorder was installed: the object, the property, and
/// how to attach an observer to it.
protocol _PropertyAccess: AnyObject {
  /// The object whose property was read.
  var object: AnyObject { get }
  /// The property's key path from its declaring type (`\User.name`).
  var propertyKeyPath: AnyKeyPath { get }
  /// Whether `other` names the same property of the same object.
  func isSame(as other: any _PropertyAccess) -> Bool
  /// Attaches `trigger` to the property: it runs after every change of the property's value.
  func attach(_ trigger: @escaping () -> Void) -> _EntryBase?
}

/// Collects the `@Observed` properties read while it is installed on the current thread.
final class _AccessRecorder {
  private(set) var accesses: [any _PropertyAccess] = []
  private var seen: Set<_AccessKey> = []

  private struct _AccessKey: Hashable {
    let object: ObjectIdentifier
    let keyPath: AnyKeyPath
  }

  func record(_ access: any _PropertyAccess) {
    let key = _AccessKey(object: ObjectIdentifier(access.object), keyPath: access.propertyKeyPath)
    if seen.insert(key).inserted { accesses.append(access) }
  }

  /// Runs `body` with a fresh recorder installed on this thread and returns what it read.
  ///
  /// Recorders nest: an inner tracking (a computed property evaluated inside another) gets its
  /// own recorder, and the outer one is restored afterwards.
  static func track<R>(_ body: () throws -> R) rethrows -> (R, [any _PropertyAccess]) {
    let thread = _ThreadState.current
    let previous = thread.recorder
    let recorder = _AccessRecorder()
    thread.recorder = recorder
    _trackingThreads.add(1, ordering: .relaxed)
    defer {
      _trackingThreads.subtract(1, ordering: .relaxed)
      thread.recorder = previous
    }
    let result = try body()
    return (result, recorder.accesses)
  }
}

/// Records a read of an `@Observed` property if the current thread is tracking.
@usableFromInline
@inline(never)
func _recordAccess<Root: ObservableModel, Value>(
  _ object: Root,
  _ wrapped: ReferenceWritableKeyPath<Root, Value>,
  _ storage: ReferenceWritableKeyPath<Root, Observed<Value>>
) {
  guard let recorder = _ThreadState.existing?.recorder else { return }
  recorder.record(_ObservedAccess(object: object, wrapped: wrapped, storage: storage))
}

/// A recorded read of one `@Observed` property.
final class _ObservedAccess<Root: ObservableModel, Value>: _PropertyAccess {
  let root: Root
  let wrapped: ReferenceWritableKeyPath<Root, Value>
  let storage: ReferenceWritableKeyPath<Root, Observed<Value>>

  init(
    object: Root, wrapped: ReferenceWritableKeyPath<Root, Value>,
    storage: ReferenceWritableKeyPath<Root, Observed<Value>>
  ) {
    self.root = object
    self.wrapped = wrapped
    self.storage = storage
  }

  var object: AnyObject { root }
  var propertyKeyPath: AnyKeyPath { wrapped }

  func isSame(as other: any _PropertyAccess) -> Bool {
    other.object === root && other.propertyKeyPath == wrapped
  }

  /// The property's slot, created (and owned by the object's state) on first use.
  func slot() -> _PropertySlot<Root, Value>? {
    Observed<Value>._slot(of: root, wrapped: wrapped, storage: storage)
  }

  func attach(_ trigger: @escaping () -> Void) -> _EntryBase? {
    guard let slot = slot() else { return nil }
    let entry = _SlotEntry<Root, Value>(everySet: false) { _, _, _ in
      trigger()
      return true
    }
    slot.append(entry)
    return entry
  }
}
