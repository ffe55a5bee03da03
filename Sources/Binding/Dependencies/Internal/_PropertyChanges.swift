/// The properties of one model that changed, with their model type erased.
protocol _PropertyChanges {
  /// The names of the changed properties, in order of first change.
  var names: [String] { get }
  /// Whether `keyPath` reads a changed property; `false` for a key path of another type.
  func _contains<Model: ObservableModel, Value>(_ keyPath: KeyPath<Model, Value>) -> Bool
}

extension ChangedProperties: _PropertyChanges {
  func _contains<Model: ObservableModel, Value>(_ keyPath: KeyPath<Model, Value>) -> Bool {
    guard let keyPath = keyPath as? KeyPath<Root, Value> else { return false }
    return contains(keyPath)
  }
}
