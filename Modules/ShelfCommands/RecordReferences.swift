import ArgumentParsing
import Domain
import Repositories

// MARK: - Ids as readers type them

// Every command that takes an id resolves it here, so all of them accept the same
// things: the full id, a unique prefix of at least four characters (like git), and a
// unique title (books, notes, tasks) or name (products; cart lines by their product's).
// What is allowed and how it is found lives in `RecordLookupService` (Repositories, over
// the store's indexes).

extension CommandContext {
    /// The full id of the record of `collection` that `reference` names.
    /// - Throws: `RecordLookupError` — not found (exit 1), too short or ambiguous
    ///   (exit 64, the candidates listed).
    func resolveID(_ reference: String, in collection: CollectionName) async throws -> String {
        try await session().repositories.lookup.resolve(reference, in: collection)
    }

    /// The full id `reference` names when it names one; otherwise `reference` itself
    /// when it is shaped like an id, for commands whose own model says what is wrong with
    /// an unknown id (the cart: "not in the catalog"). An ambiguous reference, or a name
    /// that names nothing, is still refused.
    func resolveIDIfKnown(_ reference: String, in collection: CollectionName) async throws -> String {
        let idShaped = (try? RecordID.validate(reference)) != nil
        do {
            return try await resolveID(reference, in: collection)
        } catch let error as RecordLookupError {
            if !idShaped { throw error }
            if case .ambiguous = error { throw error }
            return reference
        } catch let error as DomainError {
            guard idShaped else { throw error }
            return reference
        }
    }

    /// The prefixes a text table shows for these ids; none for `--json`, which keeps
    /// full ids, and none (full ids) when the store cannot say — a list is never
    /// refused for its short ids.
    func shortIDs(_ lists: [(CollectionName, [String])]) async -> ShortIDs {
        guard !output.isJSON, let lookup = try? session().repositories.lookup else { return .full }
        var shortIDs = ShortIDs.full
        for (collection, ids) in lists where !ids.isEmpty {
            if let shown = try? await lookup.shortIDs(ids, in: collection) { shortIDs.merge(collection, shown) }
        }
        return shortIDs
    }

    /// The titles of these books, for showing next to their ids (empty for `--json`).
    func bookTitles(_ ids: [String]) async -> [Book.ID: String] {
        guard !output.isJSON, !ids.isEmpty, let lookup = try? session().repositories.lookup else { return [:] }
        return (try? await lookup.titles(ids, in: .books)) ?? [:]
    }
}

// MARK: - Exit statuses

extension RecordLookupError {
    /// Nothing found is "not found" (1), as for a full id; a reference that could name
    /// several records, or too short to look up, is a usage error (64).
    var exitCode: ExitCode {
        switch self {
        case .notFound, .noBooks: .failure
        case .tooShort, .ambiguous: .usage
        }
    }
}
