import APNsCore
import Foundation
import HeraldCore
import Testing

@Suite struct PushTemplateTests {
    let message = NotificationMessage(
        payload: Payload(
            aps: APS(
                alert: Alert(title: "New Feedback", body: "Dark mode"), badge: 3, sound: .default, threadID: "p1",
                category: "FEEDBACK", mutableContent: true),
            custom: ["type": .string("new_feedback"), "feedbackId": .string("f-1")]),
        priority: .powerConsidered, collapseID: CollapseID("feedback-f-1"))

    static let notificationID = UUID()

    func payload(_ template: PushTemplate) throws -> Payload {
        try JSONDecoder().decode(Payload.self, from: template.payloadJSON)
    }

    @Test func appearanceShapesSoundAndBadge() throws {
        let payload = try #require(message.payload(for: .default))
        let quiet = try PushTemplate(
            message: message, payload: payload, appearance: PushAppearance(soundEnabled: false, badgeEnabled: false),
            notificationID: Self.notificationID, expiresAt: nil)
        #expect(try self.payload(quiet).aps.sound == nil)
        #expect(try self.payload(quiet).aps.badge == nil)
        let loud = try PushTemplate(
            message: message, payload: payload, appearance: PushAppearance(), notificationID: Self.notificationID,
            expiresAt: nil)
        #expect(try self.payload(loud).aps.sound == .default)
        #expect(try self.payload(loud).aps.badge == 3)
        #expect(try self.payload(loud).custom["feedbackId"] == .string("f-1"))
    }

    /// The app reports what its user did with an alert by Herald's id, which the backend's collapse id would hide;
    /// pushes that show nothing carry no such key.
    @Test func anAlertNamesItsNotificationAndOtherPushesDoNot() throws {
        let payload = try #require(message.payload(for: .default))
        let alert = try PushTemplate(
            message: message, payload: payload, appearance: PushAppearance(), notificationID: Self.notificationID,
            expiresAt: nil)
        #expect(
            try self.payload(alert).custom[PushTemplate.notificationIDKey]
                == .string(Self.notificationID.uuidString.lowercased()))
        #expect(alert.collapseID?.value == "feedback-f-1")
        let background = NotificationMessage(
            payload: Payload(aps: APS(contentAvailable: true), custom: ["sync": .bool(true)]), pushType: .background)
        let silent = try PushTemplate(
            message: background, payload: try #require(background.payload(for: .default)),
            appearance: PushAppearance(), notificationID: Self.notificationID, expiresAt: nil)
        #expect(try self.payload(silent).custom == ["sync": .bool(true)])
    }

    @Test func templateCarriesHeadersAndFitsTheBody() throws {
        var long = try #require(message.payload(for: .default))
        long.aps.alert?.body = String(repeating: "é", count: 5_000)
        let expiry = Date(timeIntervalSince1970: 2_000_000_000)
        let template = try PushTemplate(
            message: message, payload: long, appearance: PushAppearance(), notificationID: Self.notificationID,
            expiresAt: expiry)
        #expect(template.payloadJSON.count <= 4096)
        #expect(template.priority == .powerConsidered)
        #expect(template.collapseID?.value == "feedback-f-1")
        #expect(template.expiration == .at(expiry))
        let shorter = try PushTemplate(
            message: message, payload: long, appearance: PushAppearance(), notificationID: Self.notificationID,
            expiresAt: nil, payloadLimit: 2000)
        #expect(shorter.payloadJSON.count <= 2000)
        #expect(try payload(shorter).aps.alert?.body?.hasSuffix(Payload.truncationMark) == true)
    }

    /// Seed 004 §7.3: an event's pushes expire at once unless the event gives an expiration; other pushes keep
    /// Apple's default.
    @Test func eventPushesExpireAtOnceUnlessTheEventSaysOtherwise() throws {
        for type in EventType.allCases {
            let event = try Event(
                type: type, project: ExternalID("p")!, feedback: try FeedbackReference(id: "f-1", title: "Dark mode"),
                voteCount: 2, newStatus: FeedbackStatus("in_progress"), commentID: "c-1")
            let draft = NotificationDraft(event: event)
            let payload = try #require(draft.message.payload(for: .default))
            let template = try PushTemplate(
                message: draft.message, payload: payload, appearance: PushAppearance(),
                notificationID: Self.notificationID, expiresAt: nil)
            #expect(template.expiration == .immediately, "\(type)")
            #expect(template.expiration?.headerValue == "0")
            let later = Date(timeIntervalSince1970: 2_000_000_000)
            let kept = try PushTemplate(
                message: draft.message, payload: payload, appearance: PushAppearance(),
                notificationID: Self.notificationID, expiresAt: later)
            #expect(kept.expiration == .at(later))
        }
        let direct = try PushTemplate(
            message: message, payload: try #require(message.payload(for: .default)), appearance: PushAppearance(),
            notificationID: Self.notificationID, expiresAt: nil)
        #expect(direct.expiration == nil)
    }

    /// Every push names its notification on the device, so a copy resent after a crash replaces the first; the
    /// backend's own collapse id wins.
    @Test func aPushWithoutItsOwnCollapseIDCarriesItsNotifications() throws {
        let plain = NotificationMessage(payload: Payload(aps: APS(alert: Alert(body: "Hi"))))
        let template = try PushTemplate(
            message: plain, payload: try #require(plain.payload(for: .default)), appearance: PushAppearance(),
            notificationID: Self.notificationID, expiresAt: nil)
        #expect(template.collapseID?.value == Self.notificationID.uuidString.lowercased())
        let own = try PushTemplate(
            message: message, payload: try #require(message.payload(for: .default)), appearance: PushAppearance(),
            notificationID: Self.notificationID, expiresAt: nil)
        #expect(own.collapseID?.value == "feedback-f-1")
    }
}

@Suite struct NotificationMessageTests {
    @Test func storesTheShapeExistingRowsHave() throws {
        let message = NotificationMessage(
            payloads: [.default: Payload(aps: APS(alert: Alert(body: "Hi"), mutableContent: true))],
            pushType: .alert, priority: .immediate, collapseID: CollapseID("c-1"))
        let json = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(message))
        #expect(
            json
                == .object([
                    "payloads": .object([
                        "default": .object([
                            "aps": .object(["alert": .object(["body": .string("Hi")]), "mutable-content": .int(1)])
                        ])
                    ]),
                    "pushType": .string("alert"), "priority": .int(10), "collapseId": .string("c-1"),
                ]))
        #expect(try JSONDecoder().decode(NotificationMessage.self, from: JSONEncoder().encode(message)) == message)
    }

    @Test func refusesWhatCannotBeSent() {
        let stored = #"{"payloads": {"default": {"aps": {}}}, "pushType": "mdm", "priority": 10}"#
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(NotificationMessage.self, from: Data(stored.utf8))
        }
        let badPriority = #"{"payloads": {"default": {"aps": {}}}, "pushType": "alert", "priority": 7}"#
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(NotificationMessage.self, from: Data(badPriority.utf8))
        }
    }

    @Test func aVariantWithoutItsOwnPayloadGetsTheDefault() {
        let message = NotificationMessage(payload: Payload(aps: APS(alert: Alert(body: "Hi"))))
        #expect(message.payload(for: .voter) == message.payload(for: .default))
    }
}
