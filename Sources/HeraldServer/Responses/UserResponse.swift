import Foundation
import HeraldCore
import Hummingbird

/// A user as the API shows it: the backend's id, profile and every personal setting.
struct UserResponse: ResponseEncodable {
    var id: String
    var email: String
    var name: String
    var pushNotificationsEnabled: Bool
    var pushNotifyNewFeedback: Bool
    var pushNotifyNewComments: Bool
    var pushNotifyVotes: Bool
    var pushNotifyStatusChanges: Bool
    var pushSoundEnabled: Bool
    var pushBadgeEnabled: Bool
    var emailNotificationsEnabled: Bool
    var notifyNewFeedback: Bool
    var notifyNewComments: Bool
    var notifyVotes: Bool
    var notifyStatusChanges: Bool
    /// Absent until the user first sets a window.
    var quietHours: QuietHoursResponse?
    var createdAt: Date
    var updatedAt: Date

    init(_ user: User) {
        id = user.externalID.rawValue
        email = user.email
        name = user.name
        pushNotificationsEnabled = user.push.enabled
        pushNotifyNewFeedback = user.push.newFeedback
        pushNotifyNewComments = user.push.newComments
        pushNotifyVotes = user.push.votes
        pushNotifyStatusChanges = user.push.statusChanges
        pushSoundEnabled = user.push.sound
        pushBadgeEnabled = user.push.badge
        emailNotificationsEnabled = user.emailPreferences.enabled
        notifyNewFeedback = user.emailPreferences.newFeedback
        notifyNewComments = user.emailPreferences.newComments
        notifyVotes = user.emailPreferences.votes
        notifyStatusChanges = user.emailPreferences.statusChanges
        quietHours = user.quietHours.map {
            QuietHoursResponse(
                enabled: $0.enabled, start: $0.window.start, end: $0.window.end, timeZone: $0.window.timeZone)
        }
        createdAt = user.createdAt
        updatedAt = user.updatedAt
    }
}

/// Quiet hours: minutes after local midnight in an IANA zone.
struct QuietHoursResponse: Encodable {
    var enabled: Bool
    var start: Int
    var end: Int
    var timeZone: String
}

/// A project as the API shows it.
struct ProjectResponse: ResponseEncodable {
    var id: String
    var name: String
    var ownerId: String
    var createdAt: Date
    var updatedAt: Date

    init(_ project: Project) {
        id = project.externalID.rawValue
        name = project.name
        ownerId = project.ownerID.rawValue
        createdAt = project.createdAt
        updatedAt = project.updatedAt
    }
}

/// A membership.
struct MemberResponse: ResponseEncodable {
    var projectId: String
    var userId: String
}
