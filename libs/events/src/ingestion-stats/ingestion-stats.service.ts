import { Inject, Injectable } from '@nestjs/common';
import { DAY_MS, LOGGER, type Logger, REDIS, type RedisClient, RedisKeysService } from '@foresight/platform';

export type IngestionBucket = 'hour' | 'day';

export interface IngestionOutcome {
  accepted: number;
  duplicates: number;
  rejected: number;
}

export interface IngestionStats {
  bucket: IngestionBucket;
  since: string;
  until: string;
  /** Per bucket and library, oldest bucket first; buckets where nothing arrived are absent. */
  series: Array<{ start: string; library: string } & IngestionOutcome>;
}

const OUTCOMES = ['accepted', 'duplicates', 'rejected'] as const;
const HOUR_MS = 3_600_000;
const BUCKET_MS: Record<IngestionBucket, number> = { hour: HOUR_MS, day: DAY_MS };
/** Kept a day longer than the longest window a request may ask of each bucket size (31 days of hours, 731 of days). */
const RETENTION_SECONDS: Record<IngestionBucket, number> = { hour: 32 * 86_400, day: 732 * 86_400 };

/**
 * Per organization, per hour and per day, per sending library: how many events were accepted,
 * duplicates, or refused by validation. One Redis hash per organization and bucket, its fields
 * `<library>|<outcome>`: one round trip per ingestion request (the client pipelines the commands of
 * one turn; separate commands rather than a pipeline, because a Cluster keeps the keys on different
 * nodes), no Postgres write on the hot path. The organization in the key comes from the token, and library names are bounded by
 * `libraryName`, so no sender can touch another organization's counters or grow the hash.
 */
@Injectable()
export class IngestionStatsService {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly keys: RedisKeysService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Best effort: the events are already durable, so a Redis problem is logged, never answered. */
  async record(organizationId: string, library: string, outcome: Partial<IngestionOutcome>, at = new Date()): Promise<void> {
    const counted = OUTCOMES.filter((name) => (outcome[name] ?? 0) > 0);
    if (counted.length === 0 || this.redis.status !== 'ready') return;
    const writes: Promise<unknown>[] = [];
    for (const bucket of ['hour', 'day'] as const) {
      const key = this.key(organizationId, bucket, bucketStart(at.getTime(), bucket));
      for (const name of counted) writes.push(this.redis.hincrby(key, `${library}|${name}`, outcome[name] ?? 0));
      writes.push(this.redis.expire(key, RETENTION_SECONDS[bucket]));
    }
    try {
      await Promise.all(writes);
    } catch (error) {
      this.logger.warn({ err: error, organizationId }, 'could not count ingestion outcomes');
    }
  }

  /** Records `outcome.rejected = eventCount` when `validate` throws, then rethrows. */
  async refusedUnless<T>(organizationId: string, library: string, eventCount: number, validate: () => Promise<T>): Promise<T> {
    try {
      return await validate();
    } catch (error) {
      await this.record(organizationId, library, { rejected: eventCount });
      throw error;
    }
  }

  async stats(organizationId: string, bucket: IngestionBucket, since: Date, until: Date): Promise<IngestionStats> {
    const starts: number[] = [];
    for (let start = bucketStart(since.getTime(), bucket); start < until.getTime(); start += BUCKET_MS[bucket]) starts.push(start);
    const answers = await Promise.all(starts.map((start) => this.redis.hgetall(this.key(organizationId, bucket, start))));
    const series: IngestionStats['series'] = [];
    answers.forEach((fields, index) => {
      const byLibrary = new Map<string, IngestionOutcome>();
      for (const [field, value] of Object.entries(fields)) {
        const separator = field.lastIndexOf('|');
        const name = field.slice(separator + 1) as (typeof OUTCOMES)[number];
        if (!OUTCOMES.includes(name)) continue;
        const library = field.slice(0, separator);
        const counts = byLibrary.get(library) ?? { accepted: 0, duplicates: 0, rejected: 0 };
        counts[name] = Number(value);
        byLibrary.set(library, counts);
      }
      const start = new Date(starts[index] ?? 0).toISOString();
      for (const [library, counts] of [...byLibrary].sort(([a], [b]) => a.localeCompare(b))) series.push({ start, library, ...counts });
    });
    return { bucket, since: since.toISOString(), until: until.toISOString(), series };
  }

  private key(organizationId: string, bucket: IngestionBucket, start: number): string {
    return this.keys.key('ingestion', organizationId, bucket, String(start));
  }
}

/** UTC hours and days: epoch milliseconds are whole multiples of both. */
function bucketStart(epochMs: number, bucket: IngestionBucket): number {
  return epochMs - (epochMs % BUCKET_MS[bucket]);
}
