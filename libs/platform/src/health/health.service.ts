import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { SqlExecutor } from '../database/sql/sql-executor';
import { REDIS } from '../redis/redis.module';
import { POSTGRES_ANSWERS } from './health.sql';

export type DependencyState = 'up' | 'down';

export interface Readiness {
  ready: boolean;
  checks: { postgres: DependencyState; redis: DependencyState };
}

const CHECK_TIMEOUT_MS = 1500;

@Injectable()
export class HealthService {
  constructor(
    private readonly sql: SqlExecutor,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  async readiness(): Promise<Readiness> {
    const [postgres, redis] = await Promise.all([
      probe(() => this.sql.first(POSTGRES_ANSWERS, [])),
      probe(() => this.redis.ping()),
    ]);
    return { ready: postgres === 'up' && redis === 'up', checks: { postgres, redis } };
  }
}

async function probe(check: () => Promise<unknown>): Promise<DependencyState> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([check(), timeout]);
    return 'up';
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}
