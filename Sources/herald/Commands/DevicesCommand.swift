import APNsCore
import ArgumentParser
import Foundation
import HeraldCore

/// `herald devices list | set-token | remove-token`: a user's devices and the tokens each keeps per push service, for
/// an operator; never a token's value.
struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List a user's devices, and record or remove a device's token for one push service.",
        discussion: """
            Apple issues a token per push service and a token works only on its own service's topic: voip, \
            complication and fileprovider pushes go to PushKit's tokens, location to the location push service \
            extension's, pushtotalk to PTChannelManager's, widgets and controls to WidgetKit's. Apps report them with \
            PUT /api/v1/devices/{id}/push-tokens/{kind}; these commands do the same by hand.
            """,
        subcommands: [List.self, SetToken.self, RemoveToken.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a user's devices with their service tokens' kinds.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user's id.") var user: String

        func run() async throws {
            let user = try userID(user)
            try await withDatabase(database, label: "herald.devices") { client in
                for device in try await DeviceStore(client: client).devices(of: user, in: .everyApp) {
                    let kinds = device.pushTokenKinds.map(\.rawValue).joined(separator: ",")
                    Console.line(
                        "\(device.id.uuidString.lowercased())  \(device.platform.rawValue)  "
                            + "\(device.environment.rawValue)  \(device.appID?.rawValue ?? "-")  "
                            + "\(device.isActive ? "active" : "inactive (\(device.deactivationReason?.rawValue ?? "?"))")"
                            + "  tokens: \(kinds.isEmpty ? "-" : kinds)")
                }
            }
        }
    }

    struct SetToken: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-token",
            abstract: "Record a device's token for one push service, replacing the one before.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The device's owner.") var user: String
        @Option(help: "The device's id.") var device: String
        @Option(help: "The push service: voip, complication, fileprovider, location, pushtotalk, widgets or controls.")
        var kind: String
        @Option(help: "The token in hex.") var token: String

        func run() async throws {
            let user = try userID(user)
            let device = try deviceID(device)
            let kind = try serviceKind(kind)
            guard let token = DeviceToken(hex: token) else {
                throw CommandFailure("--token must be hex of even length, 16 to 256 bytes")
            }
            try await withDatabase(database, label: "herald.devices") { client in
                guard
                    let created = try await ServiceTokenStore(client: client).register(
                        token, kind: kind, device: device, of: user, in: .everyApp)
                else { throw CommandFailure("\(user) has no active device \(device.uuidString.lowercased())") }
                Console.line("\(created ? "recorded" : "replaced") the \(kind.rawValue) token")
            }
        }
    }

    struct RemoveToken: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove-token", abstract: "Remove a device's token for one push service.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The device's owner.") var user: String
        @Option(help: "The device's id.") var device: String
        @Option(help: "The push service.") var kind: String

        func run() async throws {
            let user = try userID(user)
            let device = try deviceID(device)
            let kind = try serviceKind(kind)
            try await withDatabase(database, label: "herald.devices") { client in
                guard
                    try await ServiceTokenStore(client: client).remove(
                        kind: kind, device: device, of: user, in: .everyApp)
                else { throw CommandFailure("\(user) has no device \(device.uuidString.lowercased())") }
                Console.line("removed the \(kind.rawValue) token")
            }
        }
    }
}

private func userID(_ text: String) throws -> ExternalID {
    guard let id = ExternalID(text) else { throw CommandFailure("--user must be 1 to 128 of A-Z a-z 0-9 . _ : @ -") }
    return id
}

private func deviceID(_ text: String) throws -> UUID {
    guard let id = UUID(uuidString: text) else { throw CommandFailure("--device must be a UUID") }
    return id
}

private func serviceKind(_ text: String) throws -> ServiceTokenKind {
    guard let kind = ServiceTokenKind(rawValue: text) else {
        throw CommandFailure(
            "--kind must be one of \(ServiceTokenKind.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    return kind
}
