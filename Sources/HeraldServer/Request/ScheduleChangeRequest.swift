import HeraldCore

/// The body of `PATCH /api/v1/notifications/{id}`: a new `sendAt`, a new `alert`, or both.
enum ScheduleChangeRequest {
    static func parse(_ body: JSONObject) throws(APIError) -> ScheduleChange {
        try body.allowOnly(["sendAt", "alert"])
        var change = ScheduleChange(sendAt: try body.date("sendAt"))
        change.alert = try body.alert("alert")
        if change == ScheduleChange() { throw .validation("give sendAt or alert", field: "sendAt") }
        return change
    }
}
