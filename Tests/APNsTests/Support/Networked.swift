import Testing

/// Suites that open sockets to `apns-mock`. They run one test at a time: on a small machine, bursts of
/// thousands of pushes in parallel tests would starve each other's timing checks.
@Suite(.serialized, .timeLimit(.minutes(1)))
enum Networked {}
