/// The names of the spans Herald starts, from a request to the record of each push: the HTTP server's own span
/// (Hummingbird's, named by the route), then these.
public enum HeraldSpan {
    /// Validating and storing a notification (`POST /api/v1/events`, `/notifications`, …).
    public static let accept = "herald.accept"
    /// Turning one notification into deliveries: recipients, preferences, devices.
    public static let expand = "herald.expand"
    /// One push, from its claim to its record; the parent of the three below.
    public static let deliver = "herald.deliver"
    /// The claim that took the push, with the rest of its batch.
    public static let claim = "herald.claim"
    /// The APNs batch the push went in, until Apple answered it.
    public static let apnsBatch = "herald.apns.batch"
    /// The write that recorded the push's outcome and its log row.
    public static let record = "herald.record"
}
