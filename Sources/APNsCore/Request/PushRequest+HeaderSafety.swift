extension PushRequest {
    /// The first header this request would send with a value ``HeaderValue`` refuses, by name, and what is wrong with
    /// it; nil when every value is fit. The transport answers such a request with
    /// ``TransportFailure/unsafeHeaderValue(_:)`` instead of sending it. Only the values that come from stored content
    /// are read: the topic (the app's bundle id, or a device's own topic) and the collapse id. The rest are numbers,
    /// hex digits, base64 or Herald's own constants.
    public var unsafeHeader: (name: String, problem: HeaderValue.Problem)? {
        if let problem = HeaderValue.problem(in: topic) {
            // A broadcast or channel request carries the bundle id in its path instead.
            return (deviceToken == nil ? ":path" : "apns-topic", problem)
        }
        if let collapseID, let problem = HeaderValue.problem(in: collapseID.value) {
            return ("apns-collapse-id", problem)
        }
        return nil
    }
}
