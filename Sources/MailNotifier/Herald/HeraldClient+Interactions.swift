import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HeraldClient {
    public static let interactionsPath = "api/v1/interactions"

    /// Lists the interactions recorded after `query.since`, oldest first. Herald lists an interaction only once
    /// its recording has committed and never skips one, so a reader that keeps ``InteractionPage/nextCursor``
    /// reads each exactly once, in order.
    /// - Throws: ``HeraldError``: `rejected` for an error status (400 for a malformed cursor, 401 for a missing
    ///   or unknown key), `invalidResponse` for a success whose body is not a page of interactions.
    public func interactions(_ query: InteractionQuery) async throws(HeraldError) -> InteractionPage {
        let url = configuration.baseURL.appending(path: Self.interactionsPath)
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw .invalidRequest(reason: "cannot add a query to \(url)")
        }
        let query = query.percentEncoded
        components.percentEncodedQuery = query.isEmpty ? nil : query
        guard let queryURL = components.url else {
            throw .invalidRequest(reason: "cannot add the query \(query) to \(url)")
        }
        let (data, response) = try await perform(authorizedRequest(to: queryURL, method: "GET"))
        try Self.checkStatus(data, response)
        do {
            return try JSONDecoder().decode(InteractionPage.self, from: data)
        } catch {
            throw .invalidResponse(
                status: response.statusCode, reason: "expected {\"items\", \"nextCursor\", \"hasMore\"}: \(error)")
        }
    }
}
