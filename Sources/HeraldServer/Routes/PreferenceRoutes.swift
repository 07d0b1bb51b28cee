import HeraldCore
import Hummingbird

/// Seed §6.2: personal settings and per-project overrides, each user their own. They hold for every app, so an
/// app's key may not read or change them.
struct PreferenceRoutes {
    let services: HeraldServices
    let maxBodySize: Int

    func register(on router: Router<HeraldRequestContext>) {
        // Reading the settings changes nothing, not even updated_at, where an empty PATCH would.
        router.on("/api/v1/auth/notifications", method: .get) { _, context in
            let user = try context.requireUserOfEveryApp()
            guard let found = try await services.directory.user(user) else {
                throw APIError.notFound("no user has this id", field: "userId")
            }
            return UserResponse(found)
        }
        router.on("/api/v1/auth/notifications", method: .patch) { request, context in
            let user = try context.requireUserOfEveryApp()
            let body = try JSONBody.object(try await JSONBody.bytes(of: request, limit: maxBodySize))
            let changes = try Self.personalChanges(body)
            guard let updated = try await services.preferences.updatePersonal(user, changes) else {
                throw APIError.notFound("no user has this id", field: "userId")
            }
            return UserResponse(updated)
        }
        router.on("/api/v1/projects/{projectId}/notification-preferences", method: .get) { _, context in
            let user = try context.requireUserOfEveryApp()
            let preferences = try await services.preferences.projectPreferences(
                user, project: try context.externalID("projectId"))
            return ProjectPreferencesResponse(preferences: preferences)
        }
        router.on("/api/v1/projects/{projectId}/notification-preferences", method: .patch) { request, context in
            let user = try context.requireUserOfEveryApp()
            let project = try context.externalID("projectId")
            let body = try JSONBody.object(try await JSONBody.bytes(of: request, limit: maxBodySize))
            let changes = try Self.projectChanges(body)
            let preferences = try await services.preferences.updateProjectPreferences(user, project: project, changes)
            return ProjectPreferencesResponse(preferences: preferences)
        }
    }

    static func personalChanges(_ body: JSONObject) throws(APIError) -> PersonalPreferenceChanges {
        try body.allowOnly([
            "pushNotificationsEnabled", "pushNotifyNewFeedback", "pushNotifyNewComments", "pushNotifyVotes",
            "pushNotifyStatusChanges", "pushSoundEnabled", "pushBadgeEnabled", "emailNotificationsEnabled",
            "notifyNewFeedback", "notifyNewComments", "notifyVotes", "notifyStatusChanges", "quietHours",
        ])
        var changes = PersonalPreferenceChanges()
        changes.pushEnabled = try body.bool("pushNotificationsEnabled")
        changes.pushNewFeedback = try body.bool("pushNotifyNewFeedback")
        changes.pushNewComments = try body.bool("pushNotifyNewComments")
        changes.pushVotes = try body.bool("pushNotifyVotes")
        changes.pushStatusChanges = try body.bool("pushNotifyStatusChanges")
        changes.pushSound = try body.bool("pushSoundEnabled")
        changes.pushBadge = try body.bool("pushBadgeEnabled")
        changes.emailEnabled = try body.bool("emailNotificationsEnabled")
        changes.emailNewFeedback = try body.bool("notifyNewFeedback")
        changes.emailNewComments = try body.bool("notifyNewComments")
        changes.emailVotes = try body.bool("notifyVotes")
        changes.emailStatusChanges = try body.bool("notifyStatusChanges")
        if let quietHours = try body.object("quietHours") {
            try quietHours.allowOnly(["enabled", "start", "end", "timeZone"])
            guard let enabled = try quietHours.bool("enabled") else {
                throw .validation("is required", field: quietHours.field("enabled"))
            }
            let (start, end) = (try quietHours.integer("start"), try quietHours.integer("end"))
            let timeZone = try quietHours.string("timeZone")
            changes.quietHours = try JSONObject.domain { () throws(DomainError) in
                try QuietHoursChange(enabled: enabled, start: start, end: end, timeZone: timeZone)
            }
        }
        return changes
    }

    static func projectChanges(_ body: JSONObject) throws(APIError) -> ProjectOverrideChanges {
        try body.allowOnly(["push", "email"])
        var changes = ProjectOverrideChanges()
        if let push = try body.object("push") {
            try push.allowOnly(["muted", "newFeedback", "newComments", "votes", "statusChanges"])
            changes.muted = try push.bool("muted")
            changes.newFeedback = try push.overrideChange("newFeedback")
            changes.newComments = try push.overrideChange("newComments")
            changes.votes = try push.overrideChange("votes")
            changes.statusChanges = try push.overrideChange("statusChanges")
        }
        if let email = try body.object("email") {
            try email.allowOnly(["muted", "newFeedback", "newComments"])
            changes.emailMuted = try email.bool("muted")
            changes.emailNewFeedback = try email.overrideChange("newFeedback")
            changes.emailNewComments = try email.overrideChange("newComments")
        }
        return changes
    }
}
