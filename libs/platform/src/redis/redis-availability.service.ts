import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../errors/app-error';
import { isInfrastructureUnavailable } from '../errors/unavailable';
import { REDIS } from './redis.tokens';
import type { RedisClient } from './redis-connections';

/** How long a request waits for one Redis-backed step; the bound for the whole answer is 2 s. */
export const REDIS_STEP_DEADLINE_MS = 1_200;

/**
 * Bounds the Redis steps of a request that go through BullMQ. BullMQ's connections hold commands
 * while Redis is unreachable and never give up (right for workers, wrong for a caller waiting on an
 * answer): `within` answers `unavailable` at once while the request client sees Redis down, and when
 * a step overruns the deadline. The caller undoes what it did before (or does the step first).
 */
@Injectable()
export class RedisAvailabilityService {
  constructor(@Inject(REDIS) private readonly redis: RedisClient) {}

  get up(): boolean {
    return this.redis.status === 'ready';
  }

  /** Throws `unavailable` while Redis is known to be down: called before a change that needs Redis right after. */
  assertUp(what: string): void {
    if (!this.up) throw redisUnavailable(what);
  }

  async within<T>(what: string, step: () => Promise<T>, deadlineMs = REDIS_STEP_DEADLINE_MS): Promise<T> {
    this.assertUp(what);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(redisUnavailable(what)), deadlineMs);
    });
    try {
      return await Promise.race([step(), deadline]);
    } catch (error) {
      if (error instanceof AppError || !isInfrastructureUnavailable(error)) throw error;
      throw redisUnavailable(what);
    } finally {
      clearTimeout(timer);
    }
  }
}

function redisUnavailable(what: string): AppError {
  return new AppError('unavailable', `Redis is unreachable: could not ${what}; try again shortly.`);
}
