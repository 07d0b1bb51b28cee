/// A message sent with `NOTIFY` (or `pg_notify`) to a channel this session listens on.
public struct PostgresNotification: Sendable, Equatable {
    public let channel: String
    public let payload: String
    /// The server process that sent it.
    public let processID: Int32
}
