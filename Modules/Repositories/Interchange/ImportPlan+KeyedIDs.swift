import Domain
import Records

// MARK: - Ids that reveal nothing

extension ImportPlan {
    /// The plan with every id it made from the source (`gr-<Goodreads Book Id>`,
    /// `cal-<Calibre id>`, their reviews' `…-review`) replaced by `keyed(id, collection)`,
    /// and every reference to such a book (`book_id`) with it.
    ///
    /// An encrypted account must not name its records by what the source called them: a
    /// Goodreads Book Id tells the server which book it is. The keyed id is deterministic
    /// (a keyed hash under the account's key: `KeyedIdentifier`), so importing the same
    /// file again finds the records the first import made and adds nothing. Repositories
    /// know nothing of keys: the caller hands in the function. A Shelf export is left as it
    /// is: its ids are the records' own, and importing it again must find them.
    public func keyingIDs(_ keyed: @escaping (_ naturalID: String, _ collection: CollectionName) -> String) -> ImportPlan {
        guard format != .shelf else { return self }
        var plan = self
        plan.items = items.map { item in
            var item = item
            item.id = keyed(item.id, item.collection)
            item.fields["id"] = .string(item.id)
            if case .string(let book)? = item.fields[WireNames.noteBook] {
                item.fields[WireNames.noteBook] = .string(keyed(book, .books))
            }
            return item
        }
        return plan
    }
}
