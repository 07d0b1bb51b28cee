import Foundation
import HeraldCore
import Hummingbird

extension HeraldRequestContext {
    /// The path parameter `name` as a backend id (422 when it is not one). Clients may percent-encode the `@` and
    /// `:` an id can hold (`ada%40example.com`), so the segment is decoded first. A user id reserved for Herald
    /// (``ExternalID/isReservedForHerald``) is no backend's: 422 too.
    func externalID(_ name: String) throws(APIError) -> ExternalID {
        guard let text = decodedParameter(name), let id = ExternalID(text) else { throw JSONObject.badID(name) }
        if name == "userId", id.isReservedForHerald { throw APIError.validation("is reserved for Herald", field: name) }
        return id
    }

    /// The path parameter `name` as a UUID (422 when it is not one).
    func uuid(_ name: String) throws(APIError) -> UUID {
        guard let text = decodedParameter(name), let id = UUID(uuidString: text) else {
            throw APIError.validation("must be a UUID", field: name)
        }
        return id
    }

    /// The path parameter `feedbackId` (422 when it cannot be one).
    func feedbackID() throws(APIError) -> String {
        guard let text = decodedParameter("feedbackId"), FeedbackReference.isID(text) else {
            throw APIError.validation("must be 1 to 256 characters on one line", field: "feedbackId")
        }
        return text
    }

    /// The path parameter `name`, percent-decoded (the router hands segments over as they came).
    private func decodedParameter(_ name: String) -> String? {
        parameters.get(name).flatMap { $0.removingPercentEncoding }
    }
}
