/// The timeouts test support gives clients it builds, in one place.
///
/// They are far above what an idle machine needs, because the suite must pass on a loaded 2-core machine (CI, or a
/// developer's laptop running `herald dev` beside it) where a thread can wait a second for a core. A test that
/// checks a timeout itself sets its own, next to the check, and says why.
public enum TestTimeouts {
    /// TCP connect plus TLS handshake to `apns-mock`.
    public static let apnsConnect: Duration = .seconds(15)
    /// From handing a push to the client until its answer, including a connect.
    public static let apnsRequest: Duration = .seconds(20)
    /// One HTTP request to a server a test started, including the connect.
    public static let httpRequest: Duration = .seconds(30)
    /// Until a started program (`herald serve`, `herald dev`) says it is ready.
    public static let programStart: Duration = .seconds(120)
    /// Until a program stops after SIGTERM or SIGINT.
    public static let programStop: Duration = .seconds(60)
}
