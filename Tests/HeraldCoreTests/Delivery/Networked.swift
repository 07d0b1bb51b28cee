import HeraldTesting
import Testing

/// Suites that run engines against PostgreSQL and `apns-mock`: one test at a time, with no other budgeted suite
/// beside them, so bursts of thousands of pushes are timed against the engine, not against other suites.
@Suite(.serialized, .runsAlone, .timeLimit(.minutes(2)))
enum Networked {}
