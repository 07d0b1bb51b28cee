/// The first step of a sync run: the actions the user chose on email banners, which the app reported to
/// Herald, applied to the mailbox as `mail-notifier respond` applies them, oldest first, each exactly once.
///
/// Exactly once holds across a crash: the state is saved after every applied interaction, with the ids
/// applied past the cursor; and for the moment between changing the mailbox and saving the state, marking
/// read, archiving and deleting change nothing the second time, and a reply is filed under its interaction's
/// id, which a second attempt finds.
public enum MailNotifierInteractions {
    public struct Result: Sendable {
        /// The state after the last interaction handled: cursor, applied ids, and the badge.
        public let state: DeliveryState
        /// One per interaction handled, in order.
        public let outcomes: [InteractionOutcome]
        /// Why Herald's interactions could not be read; those not read wait for the next run.
        public let readFailure: HeraldError?

        /// Whether Herald could not be read, or did not take a removal or a badge.
        public var hasHeraldFailures: Bool {
            readFailure != nil
                || outcomes.contains {
                    if case .applied(_, cleanupFailure: .some) = $0.kind { return true }
                    return false
                }
        }

        /// Whether an action could not be carried out on the mailbox.
        public var hasActionFailure: Bool {
            outcomes.contains {
                if case .failed = $0.kind { return true }
                return false
            }
        }
    }

    /// Applies the interactions recorded after the state's cursor.
    ///
    /// On the first launch (`state` is `nil`), and on later runs until one has read to the end
    /// (``DeliveryState/catchingUpInteractions``), nothing is applied: the run only reads to the end of what Herald
    /// holds, so interactions from before this mailbox was set up never act on it.
    /// - Throws: what `feed.checkpoint` throws; the run must stop, since going on could apply an interaction
    ///   twice.
    public static func apply(
        from feed: InteractionFeed, mailbox: MailboxFile, state: DeliveryState?, center: any NotificationCenterProviding
    ) async throws(RunError) -> Result {
        guard var state, !state.catchingUpInteractions else {
            return await readToTheEnd(feed, from: state ?? DeliveryState())
        }
        var outcomes: [InteractionOutcome] = []
        while true {
            let page: InteractionPage
            do {
                page = try await feed.client.interactions(feed.query(since: state.interactionCursor))
            } catch {
                return Result(state: state, outcomes: outcomes, readFailure: error)
            }
            for interaction in page.items where !state.appliedInteractionIds.contains(interaction.id) {
                let outcome = await apply(interaction, mailbox: mailbox, state: &state, center: center)
                outcomes.append(outcome)
                switch outcome.kind {
                case .applied:
                    state.appliedInteractionIds.append(interaction.id)
                    try feed.checkpoint(state)
                case .ignored, .skipped:
                    break
                case .failed:
                    // Stop before the cursor passes it, so the next run applies it, and what follows, in order.
                    return Result(state: state, outcomes: outcomes, readFailure: nil)
                }
            }
            state.interactionCursor = page.nextCursor
            state.appliedInteractionIds = []
            // An empty page ends the reading even if it claims more, so a confused answer cannot loop forever.
            guard page.hasMore, !page.items.isEmpty else {
                return Result(state: state, outcomes: outcomes, readFailure: nil)
            }
        }
    }

    private static func apply(
        _ interaction: Interaction, mailbox: MailboxFile, state: inout DeliveryState,
        center: any NotificationCenterProviding
    ) async -> InteractionOutcome {
        let id = interaction.id
        switch RequestedAction(interaction) {
        case .nothing:
            return InteractionOutcome(interactionId: id, kind: .ignored)
        case .unusable(let reason):
            return InteractionOutcome(interactionId: id, kind: .skipped(reason: reason))
        case .apply(let action, let emailId, let replyText):
            guard await mailbox.mailbox.email(id: emailId) != nil else {
                return InteractionOutcome(
                    interactionId: id, kind: .skipped(reason: "email \(emailId) is no longer in the mailbox"))
            }
            let result = await MailNotifierResponse.respond(
                to: emailId, with: action, replyText: replyText, answering: id, mailbox: mailbox, state: state,
                center: center)
            state = result.state
            switch result.failure {
            case nil:
                return InteractionOutcome(interactionId: id, kind: .applied(action, cleanupFailure: nil))
            case .cleanupFailed(let error)?:
                return InteractionOutcome(interactionId: id, kind: .applied(action, cleanupFailure: error))
            case let failure?:
                return InteractionOutcome(interactionId: id, kind: .failed(failure))
            }
        }
    }

    /// Moves the cursor past every interaction Herald holds, applying none; if Herald cannot be read to the end, the
    /// state stays catching up, for the next run to read on.
    private static func readToTheEnd(_ feed: InteractionFeed, from start: DeliveryState) async -> Result {
        var state = start
        state.catchingUpInteractions = true
        while true {
            let page: InteractionPage
            do {
                page = try await feed.client.interactions(feed.query(since: state.interactionCursor))
            } catch {
                return Result(state: state, outcomes: [], readFailure: error)
            }
            state.interactionCursor = page.nextCursor
            guard page.hasMore, !page.items.isEmpty else {
                state.catchingUpInteractions = false
                return Result(state: state, outcomes: [], readFailure: nil)
            }
        }
    }
}
