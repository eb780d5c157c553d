import { loadConfig } from '../config/config';
import type { Logger } from '../logging/logger';
import { RedisOutageLog, redisTarget } from './redis-outage-log';

const external = { DATABASE_URL: 'postgres://db/foresight', TOKEN_PEPPER: 'p'.repeat(32), ENCRYPTION_KEY: 'a'.repeat(64) };

describe('RedisOutageLog', () => {
  const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
  const fakeLogger = () => {
    const lines: string[] = [];
    const logger = { error: (_: unknown, message: string) => lines.push(message), info: (_: unknown, message: string) => lines.push(message) } as unknown as Logger;
    return { logger, lines };
  };

  it('tells an outage once however many connections report it, and its end once', () => {
    const log = new RedisOutageLog();
    const { logger, lines } = fakeLogger();
    log.attach(logger, 'redis:6379');
    for (let i = 0; i < 500; i++) log.failed(refused());
    log.recovered();
    log.recovered();
    log.failed(refused());
    expect(lines).toEqual([expect.stringMatching(/^Redis is unreachable/), 'Redis is reachable again', expect.stringMatching(/^Redis is unreachable/)]);
  });

  it('tells an outage noticed before the logger existed once the logger is attached', () => {
    const log = new RedisOutageLog();
    log.failed(refused());
    log.failed(refused());
    const { logger, lines } = fakeLogger();
    log.attach(logger, 'redis:6379');
    expect(lines).toHaveLength(1);
  });

  it('names the target without credentials, on every topology', () => {
    const target = (env: Record<string, string>) => redisTarget(loadConfig({ ...external, ...env }).redis);
    expect(target({ REDIS_URL: 'redis://:s3cret@cache.internal:6380/0' })).toBe('cache.internal:6380');
    expect(target({ REDIS_URL: 'rediss://cache.internal' })).toBe('cache.internal:6379');
    expect(target({ REDIS_CLUSTER_NODES: 'r1:7000,[fd00::2]:7001', REDIS_PASSWORD: 's3cret' })).toBe('Cluster r1:7000,[fd00::2]:7001');
    expect(target({ REDIS_SENTINELS: 's1,s2', REDIS_SENTINEL_NAME: 'main', REDIS_PASSWORD: 's3cret', REDIS_SENTINEL_PASSWORD: 's3cret' })).toBe(
      'Sentinel master "main" via s1:26379,s2:26379',
    );
  });
});
