import CollectionController
import Foundation

/// UIKit's `UICollectionView`, reduced to the batch updates of the ChangeSets article's example
/// and spelled as UIKit spells them, so that the example compiles here unchanged. Items are
/// rows, sections are sections: UIKit applies the same batch-update rules to both views, so each
/// call goes to a `UITableView` model (Support/BatchUpdateTableModel.swift), which applies them
/// and records what UIKit would raise for. The example is in ChangeSetsExamplesTests.swift.
@MainActor
final class UICollectionView {
  /// The model that applies the calls: set its data source, and read what it shows.
  let model = UITableView()

  func performBatchUpdates(_ updates: (() -> Void)?, completion: ((Bool) -> Void)? = nil) {
    model.performBatchUpdates(updates, completion: completion)
  }

  func deleteSections(_ sections: IndexSet) {
    model.deleteSections(sections, with: .automatic)
  }

  func insertSections(_ sections: IndexSet) {
    model.insertSections(sections, with: .automatic)
  }

  func deleteItems(at indexPaths: [IndexPath]) {
    model.deleteRows(at: indexPaths, with: .automatic)
  }

  func insertItems(at indexPaths: [IndexPath]) {
    model.insertRows(at: indexPaths, with: .automatic)
  }

  func moveItem(at indexPath: IndexPath, to newIndexPath: IndexPath) {
    model.moveRow(at: indexPath, to: newIndexPath)
  }

  /// In a batch, at old positions.
  func reloadItems(at indexPaths: [IndexPath]) {
    model.reloadRows(at: indexPaths, with: .automatic)
  }

  /// After a batch, at current positions.
  func reconfigureItems(at indexPaths: [IndexPath]) {
    model.reconfigureRows(at: indexPaths)
  }

  /// After a batch: the sections' headers and items, read again.
  func reloadSections(_ sections: IndexSet) {
    model.reloadSections(sections, with: .automatic)
  }
}
