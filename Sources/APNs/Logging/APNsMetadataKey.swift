import APNsCore

/// The logging metadata keys of the APNs module, stable and dotted, in one place.
enum APNsMetadataKey {
    static let connection = "apns.connection"
    static let connections = "apns.connections"
    static let endpoint = "apns.endpoint"
    static let keyID = "apns.key_id"
    static let lastStreamID = "apns.last_stream_id"
    static let errorCode = "apns.error_code"
    static let debugData = "apns.debug_data"
    static let apnsID = "apns.id"
    static let error = "error"
}
