import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { loadConfig } from '../config/config';
import type { Logger } from '../logging/logger';
import type { RedisKeysService } from '../redis/redis.module';
import type { RedisAvailabilityService } from '../redis/redis-availability.service';
import { UserActivityFeedService } from './user-activity-feed.service';

const feed = (pepper: string) =>
  new UserActivityFeedService({} as Redis, {} as RedisKeysService, {} as Queue, {} as Logger, {} as RedisAvailabilityService, loadConfig({
    DATABASE_URL: 'postgres://u:p@db:5432/foresight',
    TOKEN_PEPPER: pepper,
    ENCRYPTION_KEY: 'a'.repeat(64),
  }));

describe('re-scoring job ids', () => {
  const one = feed('p'.repeat(32));

  it('are per user and stable (they debounce), but name the user only by a keyed hash', () => {
    const id = one.rescoreJobId('org_1', 'erase-me-28256');
    expect(id).toBe(one.rescoreJobId('org_1', 'erase-me-28256'));
    expect(id).toMatch(/^org_1\/[A-Za-z0-9_-]{43}$/);
    expect(id).not.toContain(Buffer.from('erase-me-28256').toString('base64url'));
    expect(id).not.toContain('erase-me');
    expect(id).not.toContain(':'); // BullMQ refuses custom ids with its key separator
  });

  it('differ between users, organizations and deployments', () => {
    const id = one.rescoreJobId('org_1', 'u1');
    expect(one.rescoreJobId('org_1', 'u2')).not.toBe(id);
    expect(one.rescoreJobId('org_2', 'u1').split('/')[1]).not.toBe(id.split('/')[1]);
    expect(feed('q'.repeat(32)).rescoreJobId('org_1', 'u1')).not.toBe(id);
  });
});

describe('who follows user activity', () => {
  const config = loadConfig({ DATABASE_URL: 'postgres://u:p@db:5432/foresight', TOKEN_PEPPER: 'p'.repeat(32), ENCRYPTION_KEY: 'a'.repeat(64) });
  const keys = { key: (...parts: string[]) => parts.join(':') } as unknown as RedisKeysService;
  const followers = (smembers: () => Promise<string[]>, up = true) => {
    const warn = jest.fn();
    const service = new UserActivityFeedService({ smembers } as unknown as Redis, keys, {} as Queue, { warn } as unknown as Logger, { up } as RedisAvailabilityService, config);
    return { service, warn };
  };

  it('is the organizations that want re-scoring, read once for a few seconds', async () => {
    const smembers = jest.fn(async () => ['org_followed']);
    const { service } = followers(smembers);
    expect(await service.followed('org_followed')).toBe(true);
    expect(await service.followed('org_other')).toBe(false);
    expect(smembers).toHaveBeenCalledTimes(1);
  });

  it('is nobody while Redis is down or cannot answer, so ingestion never waits on it or fails for it', async () => {
    const smembers = jest.fn(async () => ['org_followed']);
    expect(await followers(smembers, false).service.followed('org_followed')).toBe(false);
    expect(smembers).not.toHaveBeenCalled();
    const failing = followers(async () => Promise.reject(new Error('connection reset')));
    expect(await failing.service.followed('org_followed')).toBe(false);
    expect(failing.warn).toHaveBeenCalledWith(expect.objectContaining({ organizationId: 'org_followed' }), 'could not read who follows user activity');
  });
});
