import { OrganizationsAndTokens1763700000000 } from './1763700000000-organizations-and-tokens';
import { Events1763800000000 } from './1763800000000-events';
import { Models1763900000000 } from './1763900000000-models';
import { Webhooks1764000000000 } from './1764000000000-webhooks';
import { Predictions1764100000000 } from './1764100000000-predictions';
import { EncryptedEventPayloads1764200000000 } from './1764200000000-encrypted-event-payloads';
import { Privacy1764210000000 } from './1764210000000-privacy';
import { Monitoring1764300000000 } from './1764300000000-monitoring';
import { UserActivity1764400000000 } from './1764400000000-user-activity';
import { VersionCurves1764500000000 } from './1764500000000-version-curves';
import { EventNumericProperties1764600000000 } from './1764600000000-event-numeric-properties';
import { DashboardAdmin1764610000000 } from './1764610000000-dashboard-admin';
import { BulkScoring1764720000000 } from './1764720000000-bulk-scoring';
import { UserActivityFillfactor1764730000000 } from './1764730000000-user-activity-fillfactor';
import { EventMessageKeys1764740000000 } from './1764740000000-event-message-keys';
import { EventMessageKeysBackfill1764740000001 } from './1764740000001-event-message-keys-backfill';
import { UserWindows1764750000000 } from './1764750000000-user-windows';
import { UserActivityDelta1764760000000 } from './1764760000000-user-activity-delta';
import { PredictionsLatestLabelIndex1764770000000 } from './1764770000000-predictions-latest-label-index';
import { OrganizationKeys1764780000000 } from './1764780000000-organization-keys';
import { DashboardSessions1764790000000 } from './1764790000000-dashboard-sessions';
import { SsoGrants1764800000000 } from './1764800000000-sso-grants';
import { ShardedScoring1764810000000 } from './1764810000000-sharded-scoring';
import { TokenNames1764815000000 } from './1764815000000-token-names';
import { Audiences1764850000000 } from './1764850000000-audiences';
import { EncryptionKeyCheck1764900000000 } from './1764900000000-encryption-key-check';

/** Every migration, oldest first. Schema changes happen only here. */
export const MIGRATIONS = [OrganizationsAndTokens1763700000000, Events1763800000000, Models1763900000000, Webhooks1764000000000, Predictions1764100000000, EncryptedEventPayloads1764200000000, Privacy1764210000000, Monitoring1764300000000, UserActivity1764400000000, VersionCurves1764500000000, EventNumericProperties1764600000000, DashboardAdmin1764610000000, BulkScoring1764720000000, UserActivityFillfactor1764730000000, EventMessageKeys1764740000000, EventMessageKeysBackfill1764740000001, UserWindows1764750000000, UserActivityDelta1764760000000, PredictionsLatestLabelIndex1764770000000, OrganizationKeys1764780000000, DashboardSessions1764790000000, SsoGrants1764800000000, ShardedScoring1764810000000, TokenNames1764815000000, Audiences1764850000000, EncryptionKeyCheck1764900000000];
