-- Priority lanes and fair shares per app. A notification is `immediate` (calls, push-to-talk, Live Activities, test
-- pushes, alerts at priority 10 that are time-sensitive or critical) or `bulk`; its deliveries carry the lane and
-- their device's app, so the claim can take each app's due work in each lane apart (0038's index) and share a claim
-- between them by the apps' weights (`delivery_weight`, 1 to 1000).
--
-- deliveries.app_id is a scheduling key copied from the device at expansion, not a reference: the device's own
-- reference already removes its deliveries with the app, and a foreign key would cost a lookup per delivery.
ALTER TABLE apps ADD COLUMN delivery_weight integer NOT NULL DEFAULT 1,
    ADD CONSTRAINT apps_delivery_weight_range CHECK (delivery_weight BETWEEN 1 AND 1000);

ALTER TABLE notifications ADD COLUMN lane text NOT NULL DEFAULT 'bulk',
    ADD CONSTRAINT notifications_lane_valid CHECK (lane IN ('immediate', 'bulk'));
ALTER TABLE deliveries ADD COLUMN lane text NOT NULL DEFAULT 'bulk', ADD COLUMN app_id uuid,
    ADD CONSTRAINT deliveries_lane_valid CHECK (lane IN ('immediate', 'bulk'));

-- What is waiting goes in the lane the rule gives it; what is finished stays as it was sent.
UPDATE notifications SET lane = 'immediate'
WHERE state = 'scheduled' AND (
    type = 'test' OR content ->> 'pushType' IN ('voip', 'pushtotalk', 'liveactivity')
    OR ((content ->> 'priority')::int = 10
        AND content #>> '{payloads,default,aps,interruption-level}' IN ('time-sensitive', 'critical')));
UPDATE deliveries AS d
SET app_id = t.app_id,
    lane = CASE WHEN n.type = 'test' OR n.content ->> 'pushType' IN ('voip', 'pushtotalk', 'liveactivity')
                     OR ((n.content ->> 'priority')::int = 10
                         AND n.content #>> '{payloads,default,aps,interruption-level}' IN ('time-sensitive', 'critical'))
                THEN 'immediate' ELSE 'bulk' END
FROM device_tokens AS t, notifications AS n
WHERE d.finished_at IS NULL AND t.id = d.device_token_id AND n.id = d.notification_id;
