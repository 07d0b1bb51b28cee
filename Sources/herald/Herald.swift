import ArgumentParser

/// The `herald` command line.
@main
struct Herald: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "herald",
        abstract: "Herald, a self-hosted push-notification gateway for Apple devices.",
        subcommands: [
            MigrateCommand.self, DevCommand.self, PushCommand.self, WorkerCommand.self, DeliveriesCommand.self,
            LogsCommand.self, PruneCommand.self,
        ])
}
