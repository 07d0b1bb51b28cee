import APNsCore
import HeraldCore
import Hummingbird

/// Seed §6.1: a user registers, lists and removes their own devices.
struct DeviceRoutes {
    let services: HeraldServices
    let maxBodySize: Int
    let defaultEnvironment: PushEnvironment

    func register(on router: Router<HeraldRequestContext>) {
        router.on("/api/v1/devices/register", method: .post) { request, context in
            let user = try context.requireUser()
            let body = try JSONBody.object(try await JSONBody.bytes(of: request, limit: maxBodySize))
            var registration = try parseRegistration(body)
            registration.app = try context.appScope.narrow(registration.app)
            if let appID = registration.app {
                guard let app = try await services.apps.app(appID) else {
                    throw APIError.notFound("no app has this id", field: "appId")
                }
                // Another bundle id would send this app's pushes to a topic of someone else's, with their key.
                if let topic = registration.topic, topic != app.bundleID {
                    throw APIError.validation(
                        "must be the bundle id of app \(appID) (\(app.bundleID)), or left out", field: "topic")
                }
                registration.topic = app.bundleID
            }
            let (device, created) = try await services.registrations.register(registration, for: user)
            return EditedResponse(status: created ? .created : .ok, response: DeviceResponse(device))
        }
        router.on("/api/v1/devices/{deviceId}", method: .delete) { _, context in
            let user = try context.requireUser()
            guard
                try await services.devices.remove(
                    try context.uuid("deviceId"), of: user, in: context.appScope)
            else {
                throw APIError.notFound("you have no device with this id", field: "deviceId")
            }
            return Response(status: .noContent)
        }
        // Seed §8.2: the app unregisters by the token it holds, without having kept the device's id.
        router.on("/api/v1/devices/unregister", method: .post) { request, context in
            let user = try context.requireUser()
            let body = try JSONBody.object(try await JSONBody.bytes(of: request, limit: maxBodySize))
            try body.allowOnly(["token"])
            let token = try body.deviceToken("token")
            guard try await services.devices.remove(token: token, of: user, in: context.appScope) else {
                throw APIError.notFound("you have no device with this token", field: "token")
            }
            return Response(status: .noContent)
        }
        router.on("/api/v1/devices", method: .get) { _, context in
            let user = try context.requireUser()
            let devices = try await services.devices.devices(of: user, in: context.appScope)
            return DeviceListResponse(devices: devices.map(DeviceResponse.init))
        }
    }

    private func parseRegistration(_ body: JSONObject) throws(APIError) -> DeviceRegistration {
        try body.allowOnly(["token", "platform", "appVersion", "osVersion", "environment", "topic", "appId"])
        let token = try body.deviceToken("token")
        guard let platform = DevicePlatform(rawValue: try body.requiredString("platform")) else {
            throw .validation("must be iOS or macOS", field: "platform")
        }
        var environment = defaultEnvironment
        if let name = try body.string("environment") {
            guard let named = PushEnvironment(rawValue: name) else {
                throw .validation("must be sandbox or production", field: "environment")
            }
            environment = named
        }
        let topic = try body.string("topic")
        if let topic, !Self.isTopic(topic) { throw .validation("must be a bundle id", field: "topic") }
        return DeviceRegistration(
            token: token, platform: platform, environment: environment, topic: topic,
            app: try body.externalID("appId"), appVersion: try version(body, "appVersion"),
            osVersion: try version(body, "osVersion"))
    }

    /// A version as the system words it (`Version 18.0 (Build 22A3354)` on iOS), up to 64 characters.
    private func version(_ body: JSONObject, _ key: String) throws(APIError) -> String? {
        let version = try body.string(key)
        if let version, !(1...64).contains(version.codePointCount) {
            throw .validation("must be 1 to 64 characters", field: key)
        }
        return version
    }

    private static func isTopic(_ text: String) -> Bool {
        (1...255).contains(text.utf8.count)
            && text.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "." || $0 == "-")
            }
    }
}
