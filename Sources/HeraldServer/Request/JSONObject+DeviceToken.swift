import APNsCore

extension JSONObject {
    /// The APNs token at `key` (required): hexadecimal, as apps get it from Apple.
    func deviceToken(_ key: String) throws(APIError) -> DeviceToken {
        guard let token = DeviceToken(hex: try requiredString(key)) else {
            throw .validation("must be hex of even length, 16 to 256 bytes", field: field(key))
        }
        return token
    }
}
