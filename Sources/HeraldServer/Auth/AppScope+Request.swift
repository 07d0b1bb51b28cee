import HeraldCore

extension AppScope {
    /// The app a request limits itself to (`appId`), within this scope: an app's key gets its own app when it names
    /// none, and a 404 when it names another, exactly as if that app did not exist.
    func narrow(_ named: ExternalID?) throws(APIError) -> ExternalID? {
        guard case .app(let own) = self else { return named }
        guard named == nil || named == own else { throw .notFound("no app has this id", field: "appId") }
        return own
    }
}
