import Cryptography
import HeraldIngress
import HeraldServer

/// The APNs ingress's settings, read when `HERALD_APNS_INGRESS_PORT` is set: `herald serve` then opens Apple's
/// provider API on that port beside its HTTP API, and `herald dev` too.
struct IngressSettings: Sendable {
    /// `HERALD_APNS_INGRESS_HOST`: default, the HTTP API's host.
    var host: String
    /// `HERALD_APNS_INGRESS_PORT`.
    var port: Int
    /// `HERALD_APNS_INGRESS_CERT_FILE`: required by `herald serve`; `herald dev` makes a certificate without it.
    var certificateFile: String?
    /// `HERALD_APNS_INGRESS_KEY_FILE`: the certificate's private key.
    var keyFile: String?
    /// `HERALD_APNS_INGRESS_WAIT`: seconds a client waits for Apple's final answer; default 10.
    var wait: Duration
    /// `HERALD_APNS_INGRESS_MODE`: `relay` (default) or `accept`.
    var mode: IngressConfiguration.Mode
    /// `HERALD_REFUSALS_PER_SECOND`, as the HTTP API reads it: lookups of API keys the ingress has not seen, per
    /// client address, before they wait their turn.
    var newKeyLookups: (perSecond: Double, burst: Int)

    /// The longest wait one may set, in seconds: Apple's clients time a request out after about a minute.
    static let longestWait = 60.0

    /// The settings, or nil when `HERALD_APNS_INGRESS_PORT` is unset.
    /// - Parameter defaultHost: The host to listen on when `HERALD_APNS_INGRESS_HOST` is unset.
    /// - Throws: ``CommandFailure`` naming the variable that is malformed.
    init?(_ settings: SettingSource, defaultHost: String) throws {
        guard let port = try settings.integer(nil, "HERALD_APNS_INGRESS_PORT") else { return nil }
        guard HTTPSettings.ports.contains(port) else {
            throw CommandFailure("HERALD_APNS_INGRESS_PORT must be 0 to 65535")
        }
        self.port = port
        host = settings.string(nil, "HERALD_APNS_INGRESS_HOST") ?? defaultHost
        certificateFile = settings.string(nil, "HERALD_APNS_INGRESS_CERT_FILE")
        keyFile = settings.string(nil, "HERALD_APNS_INGRESS_KEY_FILE")
        if (certificateFile == nil) != (keyFile == nil) {
            throw CommandFailure("HERALD_APNS_INGRESS_CERT_FILE and HERALD_APNS_INGRESS_KEY_FILE go together")
        }
        wait = .seconds(10)
        if let text = settings.string(nil, "HERALD_APNS_INGRESS_WAIT") {
            guard let seconds = Double(text), seconds > 0, seconds <= Self.longestWait else {
                throw CommandFailure("HERALD_APNS_INGRESS_WAIT must be a number of seconds above 0, at most 60")
            }
            wait = .milliseconds(Int64((seconds * 1000).rounded()))
        }
        mode = .relay
        if let text = settings.string(nil, "HERALD_APNS_INGRESS_MODE") {
            guard let chosen = IngressConfiguration.Mode(rawValue: text) else {
                let names = IngressConfiguration.Mode.allCases.map(\.rawValue).joined(separator: " or ")
                throw CommandFailure("HERALD_APNS_INGRESS_MODE must be \(names), not \"\(text)\"")
            }
            mode = chosen
        }
        let refusals = try HTTPSettings.refusals(settings).allowance
        newKeyLookups = (refusals.perSecond, Int(refusals.burst))
    }

    /// The ingress's configuration with the certificate files set, or made by `herald dev`.
    /// - Parameters:
    ///   - certificate: The certificate and key files to use when none are set.
    ///   - masterKey: Opens signing keys sealed in the database.
    /// - Throws: ``CommandFailure`` when no certificate is set and none is given.
    func configuration(
        certificate: (certificateFile: String, keyFile: String)? = nil, masterKey: AES256GCM?
    ) throws -> IngressConfiguration {
        guard let files = certificateFile.flatMap({ file in keyFile.map { (file, $0) } }) ?? certificate else {
            throw CommandFailure(
                "HERALD_APNS_INGRESS_PORT needs HERALD_APNS_INGRESS_CERT_FILE and HERALD_APNS_INGRESS_KEY_FILE: the "
                    + "ingress speaks TLS only, as Apple does")
        }
        return IngressConfiguration(
            host: host, port: port, certificateFile: files.0, privateKeyFile: files.1, wait: wait, mode: mode,
            newKeyLookupsPerSecond: newKeyLookups.perSecond, newKeyLookupBurst: newKeyLookups.burst,
            masterKey: masterKey)
    }
}
