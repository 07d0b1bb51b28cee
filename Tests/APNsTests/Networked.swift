import HeraldTesting
import Testing

/// Suites that open sockets to `apns-mock`: one test at a time, with no other budgeted suite beside them. Their
/// bursts of thousands of pushes and their ping and request timeouts measure the client, so they must not compete
/// with other suites' databases and servers for the machine's two cores.
@Suite(.serialized, .runsAlone, .timeLimit(.minutes(1)))
enum Networked {}
