import Foundation
import HeraldCore
import Hummingbird

/// A device's service tokens (VoIP, widgets, …): the app reports each kind's token (user token, or an admin key
/// acting for the user) and removes it; pushes of that kind's type go to it. No route returns a token.
struct ServiceTokenRoutes {
    let services: HeraldServices
    let maxBodySize: Int

    func register(on router: Router<HeraldRequestContext>) {
        router.on("/api/v1/devices/{deviceId}/push-tokens/{kind}", method: .put) { request, context in
            let user = try context.requireUser()
            let device = try context.uuid("deviceId")
            let kind = try Self.kind(context)
            let body = try JSONBody.object(try await JSONBody.bytes(of: request, limit: maxBodySize))
            try body.allowOnly(["token"])
            let token = try body.deviceToken("token")
            guard
                let created = try await services.serviceTokens.register(
                    token, kind: kind, device: device, of: user, in: context.appScope)
            else { throw APIError.notFound("you have no active device with this id", field: "deviceId") }
            return EditedResponse(
                status: created ? .created : .ok,
                response: ServiceTokenResponse(deviceId: device.uuidString.lowercased(), kind: kind.rawValue))
        }
        router.on("/api/v1/devices/{deviceId}/push-tokens/{kind}", method: .delete) { _, context in
            let user = try context.requireUser()
            let device = try context.uuid("deviceId")
            let kind = try Self.kind(context)
            guard try await services.serviceTokens.remove(kind: kind, device: device, of: user, in: context.appScope)
            else { throw APIError.notFound("you have no device with this id", field: "deviceId") }
            return Response(status: .noContent)
        }
    }

    private static func kind(_ context: HeraldRequestContext) throws(APIError) -> ServiceTokenKind {
        guard let text = context.parameters.get("kind"), let kind = ServiceTokenKind(rawValue: text) else {
            throw .validation(
                "must be one of \(ServiceTokenKind.allCases.map(\.rawValue).joined(separator: ", "))", field: "kind")
        }
        return kind
    }
}

/// A service token as the API confirms it: its device and kind, never the token.
struct ServiceTokenResponse: ResponseEncodable {
    var deviceId: String
    var kind: String
}
