public import APNsCore

extension PushResult {
    /// Apple's reason, when it refused the push.
    public var rejectionReason: APNsReason? {
        if case .rejected(let rejection) = self { rejection.reason } else { nil }
    }

    public var isAccepted: Bool {
        if case .accepted = self { true } else { false }
    }
}
