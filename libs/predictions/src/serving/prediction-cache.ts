import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS, RedisKeys } from '@foresight/platform';
import type { Prediction } from './prediction';

/** A cached answer is reused only while the user's events and the serving versions are unchanged, and at most this long. */
const CACHE_TTL_SECONDS = 300;

interface CachedPredictions {
  fingerprint: string;
  predictions: Prediction[];
}

/**
 * The last answer per user, shared by every API process: a repeat request with nothing new is
 * answered from here and not logged again. Keys hold a hash of the user id, never the id itself.
 * Redis trouble is a cache miss, never a failed prediction.
 */
@Injectable()
export class PredictionCache {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async get(organizationId: string, userId: string, fingerprint: string): Promise<Prediction[] | undefined> {
    const raw = await this.redis.get(this.key(organizationId, userId)).catch(() => null);
    if (!raw) return undefined;
    const cached = JSON.parse(raw) as CachedPredictions;
    return cached.fingerprint === fingerprint ? cached.predictions : undefined;
  }

  async set(organizationId: string, userId: string, fingerprint: string, predictions: Prediction[]): Promise<void> {
    const value: CachedPredictions = { fingerprint, predictions };
    await this.redis.set(this.key(organizationId, userId), JSON.stringify(value), 'EX', CACHE_TTL_SECONDS).catch(() => undefined);
  }

  async forget(organizationId: string, userId: string): Promise<void> {
    await this.redis.del(this.key(organizationId, userId));
  }

  async has(organizationId: string, userId: string): Promise<boolean> {
    return (await this.redis.exists(this.key(organizationId, userId))) === 1;
  }

  private key(organizationId: string, userId: string): string {
    return this.keys.key('predictions', organizationId, createHash('sha256').update(userId).digest('base64url'));
  }
}
