import Domain
import Foundation
import Records
import Services

// MARK: - Writes, for tests

/// Tests write records the way Shelf does, through request values (`KintoRequest`)
/// sent alone (`APIClient.write`); these name them per collection.
extension KintoCollectionService {
    public func create(id: String, data: Data) async throws -> RawRecord {
        try await client.write(try .create(in: path, id: id, data: data))
    }

    public func update(id: String, data: Data, ifMatch lastModified: Int?) async throws -> RawRecord {
        try await client.write(try .update(in: path, id: id, data: data, ifMatch: lastModified))
    }

    public func delete(id: String, ifMatch lastModified: Int?) async throws -> RawRecord {
        try await client.write(try .delete(in: path, id: id, ifMatch: lastModified))
    }

    public func batch(_ requests: [KintoRequest]) async throws -> [BatchResult] {
        try await KintoBatchService(client: client).send(requests)
    }
}
