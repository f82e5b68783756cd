import Foundation
import Services

// MARK: - What the server's answers say about its capabilities

extension SyncRun {
    /// Answers that mean the server's limits or mode changed since they were read: a
    /// batch refused as too large (400 naming the limit), a write refused by a server
    /// now read-only (405).
    static func saysCapabilitiesChanged(_ error: APIError) -> Bool {
        guard let failure = error.httpFailure else { return false }
        if failure.status == 405 { return true }
        if failure.status == 400, failure.url.hasSuffix("/batch") {
            let message = failure.serverError?.message ?? ""
            // Kinto: "Number of requests is limited to 25".
            return message.contains("requests is limited to")
        }
        return false
    }

    /// A page cut short while more follow shows the server's page limit (`paginate_by`).
    func noteServerPageLimit(_ page: RecordPage) {
        guard page.next.morePagesFollow, !page.records.isEmpty, page.records.count < options.pageSize else { return }
        report.serverPageLimit = max(report.serverPageLimit ?? 0, page.records.count)
    }
}
