import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from './eventually';
import { NODE_PASSWORD, nodeArgs, RedisProcess, startTogether, topologyDir, writeConfig } from './redis-servers';

export const MASTER_NAME = 'foresight-main';
/** The sentinels' own password (requirepass in sentinel.conf), so the tests exercise REDIS_SENTINEL_PASSWORD. */
export const SENTINEL_PASSWORD = 'sentinel-secret';

/**
 * A real Sentinel set: a master, one replica, and three sentinels (`redis-server sentinel.conf
 * --sentinel`, quorum 2) on free ports in a temporary directory. `stop` kills them all and removes it.
 */
export class RedisSentinelSet {
  private constructor(
    readonly servers: RedisProcess[],
    readonly sentinels: RedisProcess[],
    private readonly dir: { path: string; remove: () => void },
  ) {}

  static async start(): Promise<RedisSentinelSet> {
    const dir = topologyDir('sentinel');
    const started: RedisProcess[] = [];
    const inDir = (name: string) => {
      const path = join(dir.path, name);
      mkdirSync(path);
      return path;
    };
    try {
      const masterDir = inDir('master');
      const master = await RedisProcess.start(masterDir, (port) => [...nodeArgs(port), '--dir', masterDir], NODE_PASSWORD);
      started.push(master);
      // The replica and the sentinels need only the master's port: they start at once.
      const replicaDir = inDir('replica');
      const [replica, ...sentinels] = await startTogether([
        () => RedisProcess.start(replicaDir, (port) => [...nodeArgs(port), '--dir', replicaDir, '--replicaof', '127.0.0.1', String(master.port)], NODE_PASSWORD),
        ...Array.from({ length: 3 }, (_, i) => () => {
          const sentinelDir = inDir(`sentinel-${i}`);
          // Sentinel rewrites its file (what it learns of replicas and peers): one file each.
          return RedisProcess.start(
            sentinelDir,
            (port) => [
              writeConfig(sentinelDir, 'sentinel.conf', [
                `port ${port}`,
                'bind 127.0.0.1',
                `dir ${sentinelDir}`,
                `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${master.port} 2`,
                `sentinel auth-pass ${MASTER_NAME} ${NODE_PASSWORD}`,
                `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
                `sentinel failover-timeout ${MASTER_NAME} 10000`,
                `requirepass ${SENTINEL_PASSWORD}`,
                `sentinel sentinel-pass ${SENTINEL_PASSWORD}`,
              ]),
              '--sentinel',
            ],
            SENTINEL_PASSWORD,
          );
        }),
      ]);
      started.push(replica, ...sentinels);
      const set = new RedisSentinelSet([master, replica], sentinels, dir);
      await set.settled(master);
      return set;
    } catch (error) {
      await Promise.all(started.map((server) => server.stop()));
      dir.remove();
      throw error;
    }
  }

  env(): Record<string, string> {
    return {
      REDIS_SENTINELS: this.sentinels.map((sentinel) => `127.0.0.1:${sentinel.port}`).join(','),
      REDIS_SENTINEL_NAME: MASTER_NAME,
      REDIS_PASSWORD: NODE_PASSWORD,
      REDIS_SENTINEL_PASSWORD: SENTINEL_PASSWORD,
    };
  }

  /** The server every sentinel names as master. */
  async master(): Promise<RedisProcess> {
    const ports = await Promise.all(
      this.sentinels.map((sentinel) => sentinel.ask(SENTINEL_PASSWORD, (redis) => redis.call('SENTINEL', 'get-master-addr-by-name', MASTER_NAME) as Promise<[string, string]>)),
    );
    const agreed = new Set(ports.map(([, port]) => Number(port)));
    const master = this.servers.find((server) => agreed.size === 1 && agreed.has(server.port));
    if (!master) throw new Error(`the sentinels do not agree on one master: ${[...agreed].join(', ')}`);
    return master;
  }

  /** Waits until every sentinel names `expected` as master, sees the others, and `expected` says it is master with a replica in sync (if one is alive). */
  async settled(expected: RedisProcess): Promise<void> {
    await eventually(`the sentinels to agree on ${expected.port}`, async () => {
      if ((await this.master()) !== expected) throw new Error('another master');
      for (const sentinel of this.sentinels) {
        const [masterState] = (await sentinel.ask(SENTINEL_PASSWORD, (redis) => redis.call('SENTINEL', 'masters'))) as string[][];
        const fields = Object.fromEntries(masterState.flatMap((value, i, all) => (i % 2 === 0 ? [[value, all[i + 1]]] : [])));
        if (Number(fields['num-other-sentinels']) < 2) throw new Error(`sentinel ${sentinel.port} sees ${fields['num-other-sentinels']} others`);
      }
      const replication = await expected.ask(NODE_PASSWORD, (redis) => redis.info('replication'));
      if (!replication.includes('role:master')) throw new Error(`${expected.port} is not master yet`);
      const liveReplicas = this.servers.filter((server) => server !== expected && server.alive).length;
      if (liveReplicas > 0 && !/slave0:.*state=online/.test(replication)) throw new Error('replica not in sync');
      return true;
    }, 60_000);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.sentinels, ...this.servers].map((server) => server.stop()));
    this.dir.remove();
  }
}
