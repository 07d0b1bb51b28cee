import APNsMock
import Foundation
import HeraldCore
import HeraldIngress
import Logging
import Postgres

/// `herald dev`'s APNs ingress, when `HERALD_APNS_INGRESS_PORT` is set: Apple's provider API on loopback, for trying an
/// APNs client against Herald. Without `HERALD_APNS_INGRESS_CERT_FILE` it makes a certificate at each start, from a
/// certificate authority whose certificate it writes to the data folder for the client to trust.
enum DevIngress {
    /// The ingress, or nil when `HERALD_APNS_INGRESS_PORT` is unset.
    static func make(in folder: DevDataFolder, client: PostgresClient, logger: Logger) throws -> APNsIngress? {
        let settings = SettingSource(environment: ProcessInfo.processInfo.environment)
        guard let ingress = try IngressSettings(settings, defaultHost: "127.0.0.1") else { return nil }
        var made: (certificateFile: String, keyFile: String)?
        var trust = ingress.certificateFile.map { "its certificate \($0)" } ?? ""
        if ingress.certificateFile == nil {
            let directory = try folder.apnsDirectory()
            let authority = try MockCertificateAuthority(serverNames: ["localhost", "127.0.0.1", ingress.host])
            let files = (
                ca: directory.appendingPathComponent("ingress-ca.pem").path,
                certificate: directory.appendingPathComponent("ingress-certificate.pem").path,
                key: directory.appendingPathComponent("ingress-key.pem").path
            )
            try authority.writeCACertificate(to: files.ca)
            try Data(authority.serverCertificatePEM.utf8).write(to: URL(fileURLWithPath: files.certificate))
            try DevDataFolder.writePrivately(Data(authority.serverKeyPEM.utf8), to: URL(fileURLWithPath: files.key))
            made = (files.certificate, files.key)
            trust = "trust \(files.ca)"
        }
        let host = ingress.host
        return try APNsIngress(
            configuration: try ingress.configuration(certificate: made, masterKey: nil),
            store: IngressStore(client: client), apiKeys: APIKeyStore(client: client), logger: logger,
            onListening: { [trust] port in
                Console.line("APNs ingress (Apple's provider API): https://\(host):\(port), \(trust)")
            })
    }
}
