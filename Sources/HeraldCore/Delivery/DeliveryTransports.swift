public import APNsCore

/// The APNs transports of both environments, side by side; the device's environment picks one.
public struct DeliveryTransports: Sendable {
    public var sandbox: any PushTransport
    public var production: any PushTransport

    public init(sandbox: any PushTransport, production: any PushTransport) {
        self.sandbox = sandbox
        self.production = production
    }

    public func transport(for environment: APNsEnvironment) -> any PushTransport {
        environment == .production ? production : sandbox
    }
}
