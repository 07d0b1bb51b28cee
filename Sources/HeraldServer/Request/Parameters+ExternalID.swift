import Foundation
import HeraldCore
import Hummingbird

extension HeraldRequestContext {
    /// The path parameter `name` as a backend id (422 when it is not one).
    func externalID(_ name: String) throws(APIError) -> ExternalID {
        guard let text = parameters.get(name), let id = ExternalID(text) else { throw JSONObject.badID(name) }
        return id
    }

    /// The path parameter `name` as a UUID (422 when it is not one).
    func uuid(_ name: String) throws(APIError) -> UUID {
        guard let text = parameters.get(name), let id = UUID(uuidString: text) else {
            throw APIError.validation("must be a UUID", field: name)
        }
        return id
    }
}
