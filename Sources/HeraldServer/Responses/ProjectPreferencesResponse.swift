import HeraldCore
import Hummingbird

/// Seed §6.2's project preferences: the overrides (`null` = use personal) and what they resolve to.
struct ProjectPreferencesResponse: ResponseEncodable {
    let preferences: ProjectPreferences

    private enum Keys: String, CodingKey {
        case projectId, userId, push, email, effectivePreferences
        case muted, newFeedback, newComments, votes, statusChanges
    }

    func encode(to encoder: any Encoder) throws {
        let overrides = preferences.overrides
        var root = encoder.container(keyedBy: Keys.self)
        try root.encode(preferences.project.rawValue, forKey: .projectId)
        try root.encode(preferences.user.externalID.rawValue, forKey: .userId)
        // Optional values are encoded explicitly so an unset override reads as null rather than vanishing.
        var push = root.nestedContainer(keyedBy: Keys.self, forKey: .push)
        try push.encode(overrides.muted, forKey: .muted)
        try push.encode(overrides.newFeedback, forKey: .newFeedback)
        try push.encode(overrides.newComments, forKey: .newComments)
        try push.encode(overrides.votes, forKey: .votes)
        try push.encode(overrides.statusChanges, forKey: .statusChanges)
        var email = root.nestedContainer(keyedBy: Keys.self, forKey: .email)
        try email.encode(overrides.emailMuted, forKey: .muted)
        try email.encode(overrides.emailNewFeedback, forKey: .newFeedback)
        try email.encode(overrides.emailNewComments, forKey: .newComments)
        var effective = root.nestedContainer(keyedBy: Keys.self, forKey: .effectivePreferences)
        var effectivePush = effective.nestedContainer(keyedBy: Keys.self, forKey: .push)
        try effectivePush.encode(preferences.effective(.newFeedback), forKey: .newFeedback)
        try effectivePush.encode(preferences.effective(.newComment), forKey: .newComments)
        try effectivePush.encode(preferences.effective(.newVote), forKey: .votes)
        try effectivePush.encode(preferences.effective(.statusChange), forKey: .statusChanges)
    }
}
