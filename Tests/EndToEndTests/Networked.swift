import HeraldTesting
import Testing

/// Suites that run built `herald` binaries against PostgreSQL and `apns-mock`, one test at a time: each starts
/// processes of its own, and several at once would crowd the machine.
@Suite(.serialized, .sharesMachine, .timeLimit(.minutes(2)))
enum Networked {}
