import APNsMock
import ArgumentParser
import Foundation

/// Runs `apns-mock`: a local stand-in for Apple's push servers (TLS + HTTP/2, Apple's header and token
/// rules), for `herald dev`, manual tests and benchmarks.
@main
struct APNsMockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apns-mock",
        abstract: "A local APNs stand-in over TLS and HTTP/2.",
        discussion: """
            Trusts one signing key (the public key, or the .p8 it comes from) for one team. Writes its \
            run-time CA certificate to --cert-out; give that file to Herald as HERALD_APNS_CA_FILE.
            """)

    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on (0 picks a free one and prints it).") var port = 9443
    @Option(help: "Team id (iss) tokens must carry.") var teamID: String
    @Option(help: "Key id (kid) of the trusted key.") var keyID: String
    @Option(help: "PEM file with the trusted public key, or the .p8 private key.") var keyFile: String
    @Option(help: "Bundle id pushes may target (repeatable; none accepts any).") var bundleID: [String] = []
    @Option(
        help: """
            Bind device tokens starting with PREFIX (hex) to the service that issued them, as PREFIX=KIND: KIND is             device (alert and background) or a push type (voip, widgets, liveactivity, …). Apple's DeviceTokenNotForTopic             answers a push of another service to such a token (repeatable).
            """)
    var tokenKind: [String] = []
    @Option(help: "Where to write the CA certificate (PEM) clients must trust.") var certOut: String
    @Option(help: "Streams allowed after the first valid request.") var maxConcurrentStreams = 1000
    @Option(help: "Streams allowed before the first valid request.") var initialConcurrentStreams = 1
    @Option(help: "Send GOAWAY once, after this many responses.") var goawayAfter: Int?
    @Option(help: "Drop a connection once, after this many responses.") var dropAfter: Int?
    @Option(help: "Delay every response by this many milliseconds.") var delayMs = 0
    @Option(help: "Kill the connection (GOAWAY PROTOCOL_ERROR) on every push to this device token (repeatable).")
    var killConnectionOnToken: [String] = []
    @Flag(help: "Keep every request in memory (only useful when embedded in tests).") var record = false
    @Flag(help: "Accept a new token within 20 minutes of the last (Apple answers TooManyProviderTokenUpdates).")
    var allowFrequentTokenUpdates = false

    /// `--token-kind PREFIX=KIND` values as a prefix → kind map.
    static func tokenKinds(_ bindings: [String]) throws -> [String: String] {
        var kinds: [String: String] = [:]
        for binding in bindings {
            let parts = binding.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, parts[0].allSatisfy(\.isHexDigit), !parts[1].isEmpty else {
                throw ValidationError("--token-kind \(binding): expected PREFIX=KIND, PREFIX in hex")
            }
            kinds[parts[0]] = parts[1]
        }
        return kinds
    }

    func run() async throws {
        guard let data = FileManager.default.contents(atPath: keyFile) else {
            throw ValidationError("cannot read --key-file \(keyFile)")
        }
        var configuration = APNsMockConfiguration(
            host: host, port: port, teamID: teamID, keys: [keyID: String(decoding: data, as: UTF8.self)],
            bundleIDs: Set(bundleID), initialMaxConcurrentStreams: initialConcurrentStreams,
            raisedMaxConcurrentStreams: maxConcurrentStreams, recordsRequests: record,
            limitsTokenUpdates: !allowFrequentTokenUpdates)
        configuration.tokenKinds = try Self.tokenKinds(tokenKind)
        let server = try APNsMockServer(configuration: configuration)
        if let goawayAfter { server.injectGoAway(afterResponses: goawayAfter) }
        if let dropAfter { server.injectConnectionDrop(afterResponses: dropAfter) }
        if delayMs > 0 { server.setResponseDelay(.milliseconds(delayMs)) }
        for token in killConnectionOnToken { server.killConnections(onDeviceToken: token) }
        try server.certificateAuthority.writeCACertificate(to: certOut)
        try await server.start()
        FileHandle.standardOutput.write(Data("apns-mock listening on \(host):\(server.port); CA at \(certOut)\n".utf8))
        while !Task.isCancelled {
            try await Task.sleep(for: .seconds(3600))
        }
    }
}
