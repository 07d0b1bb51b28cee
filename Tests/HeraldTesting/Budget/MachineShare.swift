public import Testing

/// How much of the test machine a suite needs while it runs, for suites that start servers, databases, mocks or
/// programs.
///
/// Swift Testing starts every suite at once, and `.serialized` orders tests only within one suite. On a 2-core
/// machine that meant dozens of databases being created while a 10,000-push burst waited on its mock: the mock's
/// event loops got a few percent of a core and requests timed out. Suites with this trait take units from one
/// budget for the whole test process before their first test starts, and give them back after their last.
///
/// The budget is taken at the suite, outside the tests' time limits: a suite waiting for its turn never counts
/// against the time its tests are given.
public struct MachineShare: SuiteTrait, TestScoping {
    /// At most this many suites that start services run at once.
    static let budget = Semaphore(capacity: 3)

    let units: Int

    public var isRecursive: Bool { false }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await Self.budget.withUnits(units, function)
    }
}

extension Trait where Self == MachineShare {
    /// The suite runs with no other budgeted suite beside it: bursts of thousands of pushes and timing checks
    /// (ping and request timeouts) that measure the client, not the neighbours.
    public static var runsAlone: Self { MachineShare(units: MachineShare.budget.capacity) }

    /// The suite starts servers or databases but has no tight timing: it shares the machine with a few others.
    public static var sharesMachine: Self { MachineShare(units: 1) }
}
