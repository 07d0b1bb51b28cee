import ArgumentParser
import Cryptography

/// The `herald` command line.
@main
struct Herald: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "herald",
        abstract: "Herald, a self-hosted push-notification gateway for Apple devices.",
        subcommands: [
            ServeCommand.self, WorkerCommand.self, MigrateCommand.self, KeysCommand.self, AppsCommand.self,
            APNsKeysCommand.self, ChannelsCommand.self, PushCommand.self,
            DeliveriesCommand.self, LogsCommand.self, PruneCommand.self, DevCommand.self,
        ])

    static func main() async {
        do {
            try OpenSSLProcess.initializeWithoutExitCleanup()
        } catch {
            exit(withError: error)
        }
        await main(nil)
    }
}
