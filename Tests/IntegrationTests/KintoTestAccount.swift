import Domain
import Foundation
import RecordDTOs
import Records
import Services
import TestSupport

// MARK: - KintoTestAccount

/// A fresh Kinto account on the shared test server, with an API client logged in as it.
/// Every test makes its own, so tests running in parallel never see each other's records.
struct KintoTestAccount {
    let server: KintoServer
    let user: TestUser
    let client: APIClient

    /// - Parameter server: the shared accounts-plugin server unless another is given.
    init(prefix: String = "services", server: KintoServer? = nil) async throws {
        self.server = try server ?? KintoServer.shared()
        user = try await self.server.newUser(prefix: prefix)
        client = APIClient(configuration: .init(
            baseURL: self.server.baseURL,
            credentials: .init(user: user.name, password: user.password),
            timeouts: KintoServer.deviceTimeouts))
    }

    /// A client for the same server without credentials.
    var anonymousClient: APIClient {
        APIClient(configuration: .init(baseURL: server.baseURL, timeouts: client.configuration.timeouts))
    }

    func collection(_ name: CollectionName) -> KintoCollectionService {
        KintoCollectionService(client: client, collection: name)
    }

    // MARK: Domain values through their DTOs

    /// Creates `value`'s record (`If-None-Match: *`) and reads it back as Domain.
    func create<DTO: WritableRecordDTO>(_ type: DTO.Type, _ value: DTO.Value) async throws -> Versioned<DTO.Value> {
        let written = try await collection(DTO.collection).create(id: value.id, data: try DTO(value).encodedData())
        return try RecordDecoding.decode(DTO.self, from: written)
    }

    /// Replaces `value`'s record, `If-Match: lastModified` (nil: whatever is there).
    func update<DTO: WritableRecordDTO>(_ type: DTO.Type, _ value: DTO.Value, ifMatch lastModified: Int?) async throws -> Versioned<DTO.Value> {
        let written = try await collection(DTO.collection).update(id: value.id, data: try DTO(value).encodedData(), ifMatch: lastModified)
        return try RecordDecoding.decode(DTO.self, from: written)
    }

    /// Every live record of the DTO's collection, following `Next-Page`, as Domain.
    func list<DTO: RecordDTO>(_ type: DTO.Type, _ query: ListQuery = ListQuery()) async throws -> [Versioned<DTO.Value>] {
        guard let page = try await collection(DTO.collection).allRecords(query).page else { return [] }
        return try RecordDecoding.decode(DTO.self, records: page.records)
    }

    /// Creates `count` books `book-000`… through one batch.
    func seedBooks(_ count: Int, prefix: String = "book") async throws -> [RawRecord] {
        let path = KintoCollectionPath(.books)
        let operations = try (0..<count).map { index in
            try KintoRequest.create(
                in: path, id: String(format: "\(prefix)-%03d", index),
                data: Data(#"{"title":"Book \#(index)","author_name":"Author \#(index % 3)","finished":false}"#.utf8))
        }
        return try await KintoBatchService(client: client).send(operations).map { try $0.record() }
    }
}

