public import APNsCore

extension PushEnvironment {
    /// The APNs environment a device of this environment is reached in.
    public var apns: APNsEnvironment { self == .production ? .production : .sandbox }

    public init(_ environment: APNsEnvironment) {
        self = environment == .production ? .production : .sandbox
    }
}
