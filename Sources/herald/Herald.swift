import ArgumentParser
import Cryptography
import Glibc

/// The `herald` command line.
@main
struct Herald: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "herald",
        abstract: "Herald, a self-hosted push-notification gateway for Apple devices.",
        subcommands: [
            ServeCommand.self, WorkerCommand.self, MigrateCommand.self, KeysCommand.self, AppsCommand.self,
            APNsKeysCommand.self, ChannelsCommand.self, PushCommand.self,
            DevicesCommand.self, DeliveriesCommand.self, LogsCommand.self, PruneCommand.self, DevCommand.self,
        ])

    static func main() async {
        // A write to a connection the peer has closed (APNs, PostgreSQL, a webhook, a closed stdout) must fail that
        // write with EPIPE, not end the process: OpenSSL writes to the APNs sockets with plain `write`.
        signal(SIGPIPE, SIG_IGN)
        do {
            try OpenSSLProcess.initializeWithoutExitCleanup()
        } catch {
            exit(withError: error)
        }
        await main(nil)
    }
}
