// MARK: - Duplicate identities

extension Sequence where Element: Identifiable, Element.ID: Hashable {
    /// The identities that occur more than once, in order of their second appearance.
    ///
    /// NB: inlinable, so a caller's module specializes it for its element: a generic
    /// set of ids hashes each one through witness tables, and a list checks thousands.
    @inlinable
    public func duplicateIDs() -> [Element.ID] {
        var seen = Set<Element.ID>(minimumCapacity: underestimatedCount)
        var reported = Set<Element.ID>()
        var duplicates: [Element.ID] = []
        for element in self where !seen.insert(element.id).inserted {
            if reported.insert(element.id).inserted { duplicates.append(element.id) }
        }
        return duplicates
    }

    /// Returns the elements as an array when every identity is unique.
    ///
    /// The seed apps reject such a list before it reaches a list view: two rows with
    /// one identity make selection and diffing ambiguous.
    /// - Throws: `DomainError.duplicateIdentities` naming every repeated id.
    @inlinable
    public func requireUniqueIDs() throws(DomainError) -> [Element] {
        let duplicates = duplicateIDs()
        guard duplicates.isEmpty else {
            throw .duplicateIdentities(duplicates.map { String(describing: $0) })
        }
        return Array(self)
    }
}
