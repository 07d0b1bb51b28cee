import APNsCore
import Foundation
import HeraldCore
import Testing

/// A direct send becomes exactly what the APNs model can send: its push type and priority are Apple's, resolved
/// the way Apple documents them.
@Suite struct DirectNotificationTests {
    func direct(_ change: (inout DirectNotification) -> Void) -> DirectNotification {
        var direct = DirectNotification()
        direct.userIDs = [ExternalID("alice")!]
        change(&direct)
        return direct
    }

    @Test func aContentOnlyPushIsABackgroundPushAtPriorityFive() throws {
        let silent = direct { $0.contentAvailable = true }
        try silent.validate()
        #expect(silent.resolvedPushType == .background)
        #expect(silent.resolvedPriority == .powerConsidered)
        let message = NotificationDraft(direct: silent).message
        #expect(message.pushType == .background && message.priority == .powerConsidered)
        #expect(message.payload(for: .default)?.aps.contentAvailable == true)
    }

    @Test func anAlertIsAnAlertAtPriorityTen() throws {
        let alert = direct { $0.alert = Alert(title: "Hi", body: "There") }
        try alert.validate()
        #expect(alert.resolvedPushType == .alert && alert.resolvedPriority == .immediate)
    }

    @Test func backgroundPushesRefusePriorityTen() {
        let loud = direct {
            $0.contentAvailable = true
            $0.priority = .immediate
        }
        let error = #expect(throws: DomainError.self) { try loud.validate() }
        #expect(error?.field == "priority")
    }

    @Test func pushTypeNamesAreApplesAndMdmSaysWhyNot() {
        #expect(throws: Never.self) { try DirectNotification.pushType(named: "liveactivity") }
        let unknown = #expect(throws: DomainError.self) { try DirectNotification.pushType(named: "telepathy") }
        #expect(unknown?.field == "pushType")
        let mdm = #expect(throws: DomainError.self) { try DirectNotification.pushType(named: "mdm") }
        #expect(mdm?.message.contains("certificate") == true)
    }

    @Test func theSizeLimitIsThePushTypes() throws {
        let large = String(repeating: "x", count: 4_500)
        let voip = direct {
            $0.pushType = .voip
            $0.data = ["blob": .string(large)]
        }
        try voip.validate()
        let alert = direct { $0.data = ["blob": .string(large)] }
        let error = #expect(throws: DomainError.self) { try alert.validate() }
        #expect(error?.field == "data")
    }
}
