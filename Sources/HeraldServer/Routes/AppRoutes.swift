import Cryptography
import HeraldCore
import Hummingbird

/// Apps and signing keys as data: the backend's apps, each a bundle id on a team (read by any API key, changed by
/// admin keys), and the keys Herald may sign with (admin keys). A key's PEM sent here is sealed under the master
/// key at once; no answer returns it. An app's key sees its own app only, and changes neither apps nor the keys
/// teams share.
struct AppRoutes {
    let services: HeraldServices
    let maxBodySize: Int
    let masterKey: AES256GCM?

    func register(on router: Router<HeraldRequestContext>) {
        router.on("/api/v1/apps", method: .get) { _, context in
            _ = try context.requireAPIKey(.read)
            let apps = try await services.apps.list().filter { context.appScope.admits($0.externalID) }
            return AppListResponse(apps: apps.map(AppResponse.init))
        }
        router.on("/api/v1/apps/{appId}", method: .put) { request, context in
            let id = try visibleApp(context, needing: .admin)
            _ = try context.requireAdminOfEveryApp()
            let body = try JSONBody.object(try await JSONBody.bytes(of: request, limit: maxBodySize))
            try body.allowOnly(["name", "bundleId", "teamId", "defaultEnvironment", "deliveryWeight"])
            let name = try body.requiredString("name")
            let bundleID = try body.requiredString("bundleId")
            let teamID = try body.requiredString("teamId")
            var environment = PushEnvironment.production
            if let text = try body.string("defaultEnvironment") {
                guard let named = PushEnvironment(rawValue: text) else {
                    throw APIError.validation("must be sandbox or production", field: "defaultEnvironment")
                }
                environment = named
            }
            let weight = try body.integer("deliveryWeight") ?? 1
            let definition = try JSONObject.domain { () throws(DomainError) in
                try AppDefinition(
                    name: name, bundleID: bundleID, teamID: teamID, defaultEnvironment: environment,
                    deliveryWeight: weight)
            }
            let (app, created) = try await services.apps.put(id, definition)
            return EditedResponse(status: created ? .created : .ok, response: AppResponse(app))
        }
        router.on("/api/v1/apps/{appId}", method: .get) { _, context in
            guard let app = try await services.apps.app(try visibleApp(context, needing: .read)) else {
                throw APIError.notFound("no app has this id", field: "appId")
            }
            return AppResponse(app)
        }
        router.on("/api/v1/apps/{appId}", method: .delete) { _, context in
            let id = try visibleApp(context, needing: .admin)
            _ = try context.requireAdminOfEveryApp()
            guard try await services.apps.delete(id) else {
                throw APIError.notFound("no app has this id", field: "appId")
            }
            return Response(status: .noContent)
        }
        router.on("/api/v1/apns-keys", method: .get) { _, context in
            _ = try context.requireAdminOfEveryApp()
            return SigningKeyListResponse(keys: try await services.signingKeys.list().map(SigningKeyResponse.init))
        }
        router.on("/api/v1/apns-keys", method: .post) { request, context in
            _ = try context.requireAdminOfEveryApp()
            let body = try JSONBody.object(try await JSONBody.bytes(of: request, limit: maxBodySize))
            let (definition, pem) = try Self.parseKey(body)
            guard let masterKey else {
                throw APIError(
                    .conflict, .conflict,
                    "this server has no HERALD_MASTER_KEY_FILE to seal keys with; add the key on the host with "
                        + "herald apns-keys add --key-path", field: "privateKey")
            }
            let (key, added) = try await services.signingKeys.add(definition, pem: pem, masterKey: masterKey)
            return EditedResponse(status: added ? .created : .ok, response: SigningKeyResponse(key))
        }
        router.on("/api/v1/apns-keys/{teamId}/{keyId}", method: .delete) { _, context in
            _ = try context.requireAdminOfEveryApp()
            let team = try context.parameters.require("teamId")
            let key = try context.parameters.require("keyId")
            guard let retired = try await services.signingKeys.retire(keyID: key, teamID: team).first else {
                throw APIError.notFound("no active key has this team and id", field: "keyId")
            }
            return SigningKeyResponse(retired)
        }
    }

    /// The path's `appId` for a key of scope `needed`: another app than an app's key's own is a 404, as if it did
    /// not exist.
    private func visibleApp(_ context: HeraldRequestContext, needing needed: APIKeyScope) throws(APIError)
        -> ExternalID
    {
        _ = try context.requireAPIKey(needed)
        let id = try context.externalID("appId")
        _ = try context.appScope.narrow(id)
        return id
    }

    /// `{"teamId", "keyId", "environments"?, "topics"?, "privateKey"}`: the key's PEM must be a P-256 private key.
    private static func parseKey(_ body: JSONObject) throws(APIError) -> (SigningKeyDefinition, String) {
        try body.allowOnly(["teamId", "keyId", "environments", "topics", "privateKey"])
        let team = try body.requiredString("teamId")
        let keyID = try body.requiredString("keyId")
        var environments = SigningKey.Environments.both
        if let text = try body.string("environments") {
            guard let named = SigningKey.Environments(rawValue: text) else {
                throw .validation("must be both, sandbox or production", field: "environments")
            }
            environments = named
        }
        let topics = try body.stringArray("topics", maximum: SigningKeyDefinition.maximumTopics) ?? []
        let pem = try body.requiredString("privateKey")
        guard (try? P256PrivateKey(pem: pem)) != nil else {
            throw .validation("must be an APNs .p8 key: a P-256 private key in PEM", field: "privateKey")
        }
        let definition = try JSONObject.domain { () throws(DomainError) in
            try SigningKeyDefinition(teamID: team, keyID: keyID, environments: environments, topics: topics)
        }
        return (definition, pem)
    }
}
