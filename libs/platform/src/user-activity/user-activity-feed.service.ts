import { createHmac, hkdfSync } from 'node:crypto';
import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import type { Logger } from '../logging/logger';
import { LOGGER } from '../logging/logger.provider';
import { contractJob, type JobPayloads, JOBS, QUEUES } from '../queue/queue-contract';
import { REDIS, RedisKeysService } from '../redis/redis.module';
import { RedisAvailabilityService } from '../redis/redis-availability.service';
import type { RedisClient } from '../redis/redis-connections';

/** How long a process trusts its copy of the set of organizations that want re-scoring. */
const WANTED_CACHE_MS = 5_000;

type UserActivityJob = JobPayloads[typeof JOBS.userActivity.rescore];

/**
 * Tells the upper libs that users of an organization got new events, without the events lib knowing
 * who listens: an organization is "wanted" while something needs it (webhooks subscribed to
 * prediction.updated); only then does ingestion queue one debounced re-scoring job per user.
 */
@Injectable()
export class UserActivityFeedService {
  private wanted: { organizations: Set<string>; readAt: number } | undefined;
  private readonly jobIdKey: Buffer;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly keys: RedisKeysService,
    @InjectQueue(QUEUES.userActivity) private readonly queue: Queue<UserActivityJob>,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly availability: RedisAvailabilityService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.jobIdKey = Buffer.from(hkdfSync('sha256', config.tokenPepper.reveal(), '', 'foresight user job ids', 32));
  }

  /**
   * The re-scoring job id of a user: per user (so it debounces), but a keyed hash, because job ids stay
   * in Redis beyond the job (BullMQ's event stream names them) and must not reveal the user id.
   */
  rescoreJobId(organizationId: string, userId: string): string {
    return `${organizationId}/${createHmac('sha256', this.jobIdKey).update(organizationId).update('\0').update(userId).digest('base64url')}`;
  }

  async setWanted(organizationId: string, wanted: boolean): Promise<void> {
    const key = this.keys.key('user-activity', 'wanted');
    await this.availability.within('record who follows user activity', () => (wanted ? this.redis.sadd(key, organizationId) : this.redis.srem(key, organizationId)));
    this.wanted = undefined;
  }

  /**
   * Adds organizations to those followed, as PostgreSQL lists them now: the set lives only in Redis,
   * which may have restarted without its data, and ingestion would then queue no re-scoring at all.
   */
  async keepWanted(organizationIds: readonly string[]): Promise<void> {
    if (organizationIds.length > 0) await this.redis.sadd(this.keys.key('user-activity', 'wanted'), ...organizationIds);
  }

  /**
   * Whether touched() has anything to do for the organization: ingestion asks before it stores, and
   * only then has the writer name the users whose history changed. False during a Redis outage
   * (logged once already) and when Redis cannot say.
   */
  async followed(organizationId: string): Promise<boolean> {
    if (!this.availability.up) return false;
    try {
      return await this.isWanted(organizationId);
    } catch (error) {
      this.logger.warn({ err: error, organizationId }, 'could not read who follows user activity');
      return false;
    }
  }

  /**
   * After events were stored. The job id is per user, so while a re-scoring waits its debounce, more
   * events of the same user add nothing. Best effort: a Redis problem must not fail stored events.
   */
  async touched(organizationId: string, userIds: Iterable<string>): Promise<void> {
    if (!(await this.followed(organizationId))) return;
    try {
      const jobs = [...new Set(userIds)].map((userId) => contractJob(JOBS.userActivity.rescore, { organizationId, userId }, this.rescoreJobId(organizationId, userId)));
      // Bounded: ingestion answers after Postgres committed, whatever Redis does.
      if (jobs.length > 0) await this.availability.within('queue re-scoring of active users', () => this.queue.addBulk(jobs));
    } catch (error) {
      this.logger.warn({ err: error, organizationId }, 'could not queue re-scoring of active users');
    }
  }

  private async isWanted(organizationId: string): Promise<boolean> {
    if (!this.wanted || Date.now() - this.wanted.readAt > WANTED_CACHE_MS) {
      const members = await this.redis.smembers(this.keys.key('user-activity', 'wanted'));
      this.wanted = { organizations: new Set(members), readAt: Date.now() };
    }
    return this.wanted.organizations.has(organizationId);
  }
}
