import APNsCore

extension Payload {
    /// The backend's feedback id from the custom key `feedbackId`, kept in delivery logs.
    var feedbackID: String? {
        if case .string(let id)? = custom["feedbackId"], !id.isEmpty, id.utf8.count <= 256 { return id }
        return nil
    }
}
