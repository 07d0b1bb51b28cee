import ArgumentParser

/// `mail-notifier`: brings an email client's notification rules to Herald. `sync` (the default) applies what
/// the user chose on earlier banners, as the app reported it to Herald, then sends the banners and badge of a
/// batch of new emails; `respond` carries out one such choice given on the command line.
@main
struct MailNotifierCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mail-notifier",
        abstract: "Decide which new emails notify, deliver them through Herald, and answer their banners.",
        subcommands: [SyncCommand.self, RespondCommand.self],
        defaultSubcommand: SyncCommand.self
    )
}
