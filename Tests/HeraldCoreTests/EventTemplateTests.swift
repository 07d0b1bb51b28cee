import APNsCore
import HeraldCore
import Testing

@Suite struct EventTemplateTests {
    func event(_ type: EventType, count: Int? = 2, status: String = "in_progress", badge: Int? = nil) throws -> Event {
        try Event(
            type: type, project: ExternalID("p")!, feedback: try FeedbackReference(id: "f-1", title: "Dark mode"),
            voteCount: count, newStatus: FeedbackStatus(status), commentID: "c-1", badge: badge)
    }

    @Test func appendixATexts() throws {
        #expect(EventTemplate(try event(.newFeedback)) == EventTemplate(title: "New Feedback", body: "Dark mode"))
        #expect(EventTemplate(try event(.newComment)).body == "Comment on: Dark mode")
        #expect(EventTemplate(try event(.newVote, count: 1)).body == "Dark mode now has 1 vote")
        #expect(EventTemplate(try event(.newVote, count: 7)).body == "Dark mode now has 7 votes")
        #expect(
            EventTemplate(try event(.statusChange))
                == EventTemplate(title: "Status Updated", body: "Dark mode is now In Progress"))
        #expect(EventTemplate(try event(.statusChange), variant: .voter).body == "Feedback you voted on: In Progress")
        #expect(FeedbackStatus("testflight")?.displayName == "TestFlight")
        #expect(FeedbackStatus("completed")?.displayName == "Completed")
        #expect(FeedbackStatus("In Progress") == nil)
    }

    @Test func badgesAndLinks() throws {
        #expect(EventPayload.badge(for: try event(.newFeedback)) == 1)
        #expect(EventPayload.badge(for: try event(.newVote, count: 4)) == 4)
        #expect(EventPayload.badge(for: try event(.newVote, count: 4, badge: 9)) == 9)
        #expect(EventPayload.actionURL(for: try event(.newComment)) == "feedbackkit://feedback/f-1/comments")
        #expect(EventPayload.actionURL(for: try event(.statusChange)) == "feedbackkit://feedback/f-1")
        #expect(EventPayload.payload(for: try event(.newComment)).custom["commentId"] == .string("c-1"))
        #expect(EventPayload.payload(for: try event(.newFeedback)).custom["commentId"] == nil)
    }

    @Test func audiencesFollowTheSeed() {
        #expect(EventType.newFeedback.audiences == [.projectMembers])
        #expect(EventType.newComment.audiences == [.projectMembers, .submitter])
        #expect(EventType.newVote.audiences == [.submitter])
        #expect(EventType.statusChange.audiences == [.submitter, .voters])
    }
}
