import Hummingbird

/// A recorded push-to-start token, without the token.
struct PushToStartTokenResponse: ResponseEncodable {
    var deviceId: String
    var attributesType: String
}

/// A reported running activity, without its token.
struct ActivityResponse: ResponseEncodable {
    var activityId: String
    var deviceId: String
    var attributesType: String
}
