import ArgumentParser

/// Where the database is and where its migrations are, as flags; ``DatabaseSettings`` adds the environment.
struct DatabaseOptions: ParsableArguments {
    @Option(help: "PostgreSQL URL or key=value connection string. Default: $DATABASE_URL.")
    var databaseURL: String?

    @Option(
        help: ArgumentHelp(
            "Folder of numbered SQL migrations. Default: $HERALD_MIGRATIONS_DIR, else ./Migrations.",
            valueName: "dir"))
    var migrations: String?
}
