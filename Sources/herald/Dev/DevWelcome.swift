import Foundation
import HeraldCore

/// What `herald dev` prints once everything runs: where Herald is, the credentials it made, and three commands
/// that work as printed.
struct DevWelcome {
    let baseURL: String
    let apiKey: String
    let userToken: String
    let databaseURL: String
    let dataFolder: String

    var registerCommand: String {
        let body =
            #"{"token":"\#(DevDemo.deviceToken)","platform":"iOS","environment":"sandbox"}"#
        return curl("/api/v1/devices/register", bearer: userToken, body: body)
    }

    var eventCommand: String {
        let body =
            #"{"type":"new_feedback","projectId":"\#(DevDemo.projectID.rawValue)","#
            + #""feedback":{"id":"demo-1","title":"Dark mode"},"actorId":"\#(DevDemo.colleagueID.rawValue)"}"#
        return curl("/api/v1/events", bearer: apiKey, body: body)
    }

    var logCommand: String {
        curl("/api/v1/logs?userId=\(DevDemo.userID.rawValue)", bearer: apiKey, body: nil)
    }

    var text: String {
        """

        Herald is running in sandbox mode; pushes go to apns-mock on this machine.

          URL         \(baseURL)
          Dashboard   \(baseURL)/dashboard (sign in with the API key)
          API key     \(apiKey)
                      (admin scope, made for this run; earlier runs' keys are revoked; Herald stores only its hash)
          User token  \(userToken)
                      (user \(DevDemo.userID.rawValue), HS256, valid \(Int(DevDemo.userTokenLifetime / 86400)) days)
          Database    \(databaseURL)
                      (for other herald commands: --database-url or DATABASE_URL)
          Data        \(dataFolder)

        1. Register a device for \(DevDemo.userID.rawValue) (with the user token):
          \(registerCommand)

        2. Post an event: \(DevDemo.colleagueID.rawValue) adds feedback to \(DevDemo.projectID.rawValue), \
        so \(DevDemo.userID.rawValue) is notified (with the API key):
          \(eventCommand)

        3. Read \(DevDemo.userID.rawValue)'s delivery log (with the API key):
          \(logCommand)

        Each push apns-mock receives shows below. Press Ctrl-C to stop.

        """
    }

    /// One shell line: a GET, or a POST of `body`. Every value is single-quoted, and none holds a single quote.
    private func curl(_ path: String, bearer: String, body: String?) -> String {
        var parts = ["curl -sS --fail-with-body"]
        parts.append("'\(baseURL)\(path)'")
        parts.append("-H 'Authorization: Bearer \(bearer)'")
        if let body {
            parts.append("-H 'Content-Type: application/json'")
            parts.append("-d '\(body)'")
        }
        return parts.joined(separator: " ")
    }
}
