import Foundation

extension NotificationService {
    struct Banner: Sendable {
        let email: Email
        /// `.vip` or `.passed`, reported once the banner is delivered.
        let reason: NotificationDecision.Reason
    }

    /// Applies recency, the pipeline, dedup and active-folder suppression; records the reason of every
    /// email that drops out and returns the rest.
    func selectCandidates(
        _ emails: [Email], context: FilterContext, fromBackground: Bool, activeFolderType: FolderType?,
        reasons: inout [EmailID: NotificationDecision.Reason]
    ) -> [Banner] {
        let window = fromBackground ? configuration.backgroundRecency : configuration.foregroundRecency
        let oldest = context.now.addingTimeInterval(-TimeInterval(window.components.seconds))
        var candidates: [Banner] = []
        var seen: Set<EmailID> = []
        for email in emails where seen.insert(email.id).inserted {
            if email.dateReceived < oldest {
                reasons[email.id] = .recency
                continue
            }
            let decision = pipeline.decide(email, in: context)
            switch decision {
            case .rejected(let filter):
                reasons[email.id] = .filter(filter)
                continue
            case .vip, .passed:
                break
            }
            if delivered.contains(email.id) || inFlight.contains(email.id) {
                reasons[email.id] = .duplicate
            } else if let activeFolderType, email.folderTypes.contains(activeFolderType) {
                reasons[email.id] = .activeFolder
            } else {
                candidates.append(Banner(email: email, reason: decision == .vip ? .vip : .passed))
            }
        }
        return candidates
    }

    /// Keeps the most recent banners up to the cap; the others update the badge only.
    func capBanners(_ candidates: [Banner], reasons: inout [EmailID: NotificationDecision.Reason])
        -> [Banner]
    {
        let newestFirst = candidates.sorted {
            $0.email.dateReceived != $1.email.dateReceived
                ? $0.email.dateReceived > $1.email.dateReceived : $0.email.id.rawValue < $1.email.id.rawValue
        }
        for skipped in newestFirst.dropFirst(configuration.maxBannersPerSync) {
            reasons[skipped.email.id] = .batchLimit
        }
        return Array(newestFirst.prefix(configuration.maxBannersPerSync))
    }

    /// Posts the banners concurrently, so one slow request does not delay the others.
    func post(_ banners: [Banner]) async -> [(Banner, Result<Void, HeraldError>)] {
        let center = center
        return await withTaskGroup(of: (Banner, Result<Void, HeraldError>).self) { group in
            for banner in banners {
                group.addTask {
                    do throws(HeraldError) {
                        try await center.add(NotificationContentBuilder.build(from: banner.email))
                        return (banner, .success(()))
                    } catch {
                        return (banner, .failure(error))
                    }
                }
            }
            var results: [(Banner, Result<Void, HeraldError>)] = []
            for await result in group {
                results.append(result)
            }
            return results
        }
    }
}
