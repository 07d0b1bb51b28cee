import Foundation
import HeraldClient
import MailNotifier
import OpenAPIRuntime
import Testing

@Suite("CollapseID and request mapping")
struct CollapseIDTests {
    @Test func shortIdentifierIsUsedAsIs() {
        #expect(CollapseID(NotificationRequestID(emailId: "E-1")).rawValue == "email-E-1")
    }

    @Test func sha256IdIsShortenedToBase64URLOfItsBytes() {
        let id = EmailID.stable(accountId: "acct-1", messageId: "<m1@example.com>")
        #expect(id.rawValue.count == 64)
        let collapse = CollapseID(NotificationRequestID(emailId: id)).rawValue
        #expect(collapse.utf8.count <= 64)
        #expect(collapse.utf8.count == 49)
        #expect(collapse.hasPrefix("email-"))
        #expect(!collapse.contains("+") && !collapse.contains("/") && !collapse.contains("="))
        #expect(CollapseID(NotificationRequestID(emailId: id)).rawValue == collapse)
    }

    @Test func knownDigestMapsToKnownCollapseID() {
        // SHA-256("abc") = ba7816bf…15ad; its bytes in base64url are below.
        let id = EmailID(rawValue: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            CollapseID(NotificationRequestID(emailId: id)).rawValue
                == "email-ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0")
    }

    @Test func longNonHexIdIsHashedAndStaysStable() {
        let id = EmailID(rawValue: String(repeating: "x", count: 80))
        let first = CollapseID(NotificationRequestID(emailId: id)).rawValue
        #expect(first.utf8.count == 49)
        #expect(first == CollapseID(NotificationRequestID(emailId: id)).rawValue)
        #expect(
            first
                != CollapseID(NotificationRequestID(emailId: EmailID(rawValue: String(repeating: "y", count: 80))))
                .rawValue)
    }

    @Test func bannerRequestUsesCollapseIdAsIdempotencyKeySource() {
        let id = EmailID.stable(accountId: "a", messageId: "<b>")
        let request = HeraldNotificationCenter.bannerRequest(
            for: NotificationContentBuilder.build(from: makeEmail(id.rawValue)), userId: "owner")
        #expect(request.collapseId == CollapseID(NotificationRequestID(emailId: id)).rawValue)
        #expect(
            request.data?.additionalProperties.value["notificationId"] as? String
                == CollapseID(NotificationRequestID(emailId: id)).rawValue)
    }

    /// iOS names a remote notification by its `apns-collapse-id`, so a removal must use that id, not
    /// `email-<id>`, which for a 64-digit id is longer than APNs allows and was never on the device.
    @Test func removalNamesTheCollapseIdTheBannerWasSentWith() throws {
        let id = EmailID.stable(accountId: "a", messageId: "<b>")
        let banner = HeraldNotificationCenter.bannerRequest(
            for: NotificationContentBuilder.build(from: makeEmail(id.rawValue)), userId: "owner")
        let removal = HeraldNotificationCenter.removalRequest(
            for: [NotificationRequestID(emailId: id)], userId: "owner")
        let collapseId = try #require(banner.collapseId)
        #expect(collapseId != "email-\(id.rawValue)")
        let removed = removal.data?.additionalProperties.value[HeraldNotificationCenter.removeIdentifiersKey]
        #expect((removed as? [(any Sendable)?])?.map { $0 as? String } == [collapseId])
    }
}
