import Domain
import Foundation
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
            timeouts: Timeouts(connect: .seconds(5), request: .seconds(20))))
    }

    /// A client for the same server without credentials.
    var anonymousClient: APIClient {
        APIClient(configuration: .init(baseURL: server.baseURL, timeouts: client.configuration.timeouts))
    }

    func collection(_ name: CollectionName) -> KintoCollectionService {
        KintoCollectionService(client: client, collection: name)
    }

    /// Creates `count` books `book-000`… through one batch.
    func seedBooks(_ count: Int, prefix: String = "book") async throws -> [RawRecord] {
        let path = KintoCollectionPath(.books)
        let operations = try (0..<count).map { index in
            try BatchOperation.create(
                in: path, id: String(format: "\(prefix)-%03d", index),
                data: Data(#"{"title":"Book \#(index)","author_name":"Author \#(index % 3)","finished":false}"#.utf8))
        }
        return try await KintoBatchService(client: client).send(operations).map { try $0.record() }
    }
}

