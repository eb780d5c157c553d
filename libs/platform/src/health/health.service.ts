import { Inject, Injectable } from '@nestjs/common';
import { SqlExecutor } from '../database/sql/sql-executor';
import { REDIS } from '../redis/redis.module';
import { masterNodes, type RedisClient } from '../redis/redis-connections';
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
    @Inject(REDIS) private readonly redis: RedisClient,
  ) {}

  async readiness(): Promise<Readiness> {
    const [postgres, redis] = await Promise.all([
      probe(() => this.sql.first(POSTGRES_ANSWERS, [])),
      // On a Cluster every master must answer: a master down and not yet replaced leaves its slots unserved.
      probe(() => Promise.all(masterNodes(this.redis).map((node) => node.ping()))),
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
