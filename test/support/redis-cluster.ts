import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from './eventually';
import { NODE_PASSWORD, nodeArgs, redisCli, RedisProcess, startTogether, topologyDir } from './redis-servers';

/** A node stops counting as up this long after it stops answering; its replica is promoted soon after. */
const NODE_TIMEOUT_MS = 1_000;

/**
 * A real Redis Cluster: three masters, each with one replica, on free ports in a temporary directory
 * (`redis-server --cluster-enabled yes`, then `redis-cli --cluster create`), every node requiring
 * NODE_PASSWORD. `stop` kills every node and removes the directory.
 */
export class RedisCluster {
  private constructor(
    readonly nodes: RedisProcess[],
    private readonly dir: { path: string; remove: () => void },
  ) {}

  static async start(): Promise<RedisCluster> {
    const dir = topologyDir('cluster');
    let nodes: RedisProcess[] = [];
    try {
      nodes = await startTogether(
        Array.from({ length: 6 }, (_, i) => () => {
          const nodeDir = join(dir.path, `node-${i}`);
          mkdirSync(nodeDir);
          return RedisProcess.start(
            nodeDir,
            (port) => [...nodeArgs(port), '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', String(NODE_TIMEOUT_MS), '--dir', nodeDir],
            NODE_PASSWORD,
          );
        }),
      );
      redisCli(['-a', NODE_PASSWORD, '--no-auth-warning', '--cluster', 'create', ...nodes.map((node) => `127.0.0.1:${node.port}`), '--cluster-replicas', '1', '--cluster-yes']);
      const cluster = new RedisCluster(nodes, dir);
      await cluster.settled();
      return cluster;
    } catch (error) {
      await Promise.all(nodes.map((node) => node.stop()));
      dir.remove();
      throw error;
    }
  }

  /** REDIS_CLUSTER_NODES and the password, as a deployment sets them (two seed nodes: the rest are discovered). */
  env(): Record<string, string> {
    return { REDIS_CLUSTER_NODES: this.nodes.slice(0, 2).map((node) => `127.0.0.1:${node.port}`).join(','), REDIS_PASSWORD: NODE_PASSWORD };
  }

  /** The live master holding `slot`, as the live nodes see it. */
  async masterOf(slot: number): Promise<RedisProcess> {
    const anyLive = this.nodes.find((node) => node.alive) as RedisProcess;
    const slots = await anyLive.ask(NODE_PASSWORD, (redis) => redis.cluster('SLOTS'));
    const range = slots.find(([from, to]) => slot >= from && slot <= to);
    const port = range ? Number((range[2] as unknown as [string, number])[1]) : undefined;
    const master = this.nodes.find((node) => node.port === port);
    if (!master) throw new Error(`no master holds slot ${slot}`);
    return master;
  }

  /** The replica that would take over from `master`. */
  async replicaOf(master: RedisProcess): Promise<RedisProcess> {
    const anyOther = this.nodes.find((node) => node.alive && node !== master) as RedisProcess;
    const nodesTable = await anyOther.ask(NODE_PASSWORD, (redis) => redis.call('CLUSTER', 'NODES') as Promise<string>);
    const table = nodesTable.split('\n').map((line) => line.split(' '));
    const nodePort = (address: string) => Number(address.split('@')[0].split(':')[1]);
    const masterId = table.find((fields) => nodePort(fields[1] ?? '') === master.port)?.[0];
    const replicaPort = table.find((fields) => fields[2]?.includes('slave') && fields[3] === masterId)?.[1];
    const replica = replicaPort && this.nodes.find((node) => node.port === nodePort(replicaPort));
    if (!replica) throw new Error(`no replica of ${master.port}`);
    return replica;
  }

  /**
   * Waits until every live node reports the cluster healthy (all slots served), each master's
   * replicas have caught up, and `previousMaster` (if given) no longer holds `slot`.
   */
  async settled(slot?: number, previousMaster?: RedisProcess): Promise<void> {
    await eventually('the Redis Cluster to be healthy', async () => {
      for (const node of this.nodes.filter((each) => each.alive)) {
        const info = await node.ask(NODE_PASSWORD, (redis) => redis.cluster('INFO'));
        if (!info.includes('cluster_state:ok')) throw new Error(`node ${node.port}: ${info.split('\n')[0]}`);
        const replication = await node.ask(NODE_PASSWORD, (redis) => redis.info('replication'));
        if (replication.includes('role:slave') && !replication.includes('master_link_status:up')) throw new Error(`replica ${node.port} not in sync`);
      }
      if (slot !== undefined && previousMaster && (await this.masterOf(slot)) === previousMaster) throw new Error(`slot ${slot} still on the old master`);
      return true;
    }, 60_000);
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.stop()));
    this.dir.remove();
  }
}
