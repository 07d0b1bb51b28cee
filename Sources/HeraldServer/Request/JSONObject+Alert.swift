import APNsCore
import HeraldCore

extension JSONObject {
    /// An alert object (`title`, `subtitle`, `body`, at least one of them), as direct sends and schedule changes
    /// take it.
    func alert(_ key: String) throws(APIError) -> Alert? {
        guard let object = try object(key) else { return nil }
        try object.allowOnly(["title", "subtitle", "body"])
        let alert = Alert(
            title: try object.string("title"), subtitle: try object.string("subtitle"), body: try object.string("body"))
        if alert == Alert() { throw .validation("give title, subtitle or body", field: field(key)) }
        return alert
    }
}
