import HeraldCore

/// The body of `PATCH /api/v1/notifications/{id}`: a new `sendAt`, a new `alert`, or both.
enum ScheduleChangeRequest {
    static func parse(_ body: JSONObject) throws(APIError) -> ScheduleChange {
        try body.allowOnly(["sendAt", "alert"])
        var change = ScheduleChange(sendAt: try body.date("sendAt"))
        if let alert = try body.object("alert") {
            try alert.allowOnly(["title", "subtitle", "body"])
            let parsed = ScheduleChange.Alert(
                title: try alert.string("title"), subtitle: try alert.string("subtitle"),
                body: try alert.string("body"))
            if parsed == .init(title: nil, subtitle: nil, body: nil) {
                throw .validation("give title, subtitle or body", field: "alert")
            }
            change.alert = parsed
        }
        if change == ScheduleChange() { throw .validation("give sendAt or alert", field: "sendAt") }
        return change
    }
}
