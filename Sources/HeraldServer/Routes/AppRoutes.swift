import HeraldCore
import Hummingbird

/// Apps and signing keys as data (admin API key): the backend's apps, each a bundle id on a team, and the keys
/// Herald may sign with. Key material is added on the host (`herald apns-keys add`), never over the API.
struct AppRoutes {
    let services: HeraldServices
    let maxBodySize: Int

    func register(on router: Router<HeraldRequestContext>) {
        router.on("/api/v1/apps", method: .get) { _, context in
            _ = try context.requireAPIKey(.admin)
            return AppListResponse(apps: try await services.apps.list().map(AppResponse.init))
        }
        router.on("/api/v1/apps/{appId}", method: .put) { request, context in
            _ = try context.requireAPIKey(.admin)
            let id = try context.externalID("appId")
            let body = try JSONBody.object(try await JSONBody.bytes(of: request, limit: maxBodySize))
            try body.allowOnly(["name", "bundleId", "teamId", "defaultEnvironment"])
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
            let definition = try JSONObject.domain { () throws(DomainError) in
                try AppDefinition(name: name, bundleID: bundleID, teamID: teamID, defaultEnvironment: environment)
            }
            let (app, created) = try await services.apps.put(id, definition)
            return EditedResponse(status: created ? .created : .ok, response: AppResponse(app))
        }
        router.on("/api/v1/apps/{appId}", method: .get) { _, context in
            _ = try context.requireAPIKey(.admin)
            guard let app = try await services.apps.app(try context.externalID("appId")) else {
                throw APIError.notFound("no app has this id", field: "appId")
            }
            return AppResponse(app)
        }
        router.on("/api/v1/apps/{appId}", method: .delete) { _, context in
            _ = try context.requireAPIKey(.admin)
            guard try await services.apps.delete(try context.externalID("appId")) else {
                throw APIError.notFound("no app has this id", field: "appId")
            }
            return Response(status: .noContent)
        }
        router.on("/api/v1/apns-keys", method: .get) { _, context in
            _ = try context.requireAPIKey(.admin)
            return SigningKeyListResponse(keys: try await services.signingKeys.list().map(SigningKeyResponse.init))
        }
    }
}
