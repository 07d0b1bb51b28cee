import Testing

/// Suites that run engines against PostgreSQL and `apns-mock`. One test at a time: on a small machine,
/// parallel bursts of thousands of pushes would starve each other.
@Suite(.serialized, .timeLimit(.minutes(2)))
enum Networked {}
