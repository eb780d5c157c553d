import type { ConnectionOptions } from 'bullmq';
import { Cluster, type ClusterNode, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import type { RedisNodeAccess, RedisTopology } from '../config/config';
import { reconnectDelay } from './reconnect';

/** A connection to whichever topology is configured: one server and Sentinel give a Redis, a Redis Cluster a Cluster. */
export type RedisClient = Redis | Cluster;

/** Per-connection behaviour: what the request path and BullMQ ask differently. Topology and credentials come from the config. */
export type ConnectionBehaviour = Pick<
  RedisOptions,
  'enableOfflineQueue' | 'maxRetriesPerRequest' | 'enableAutoPipelining' | 'connectTimeout' | 'commandTimeout' | 'lazyConnect'
>;

/** BullMQ's connections: no key prefix, commands wait through an outage (BullMQ requires it of workers). */
export const QUEUE_CONNECTION: ConnectionBehaviour = { maxRetriesPerRequest: null };

/**
 * Every Redis connection of a process is made here, so each topology, password and TLS setting is
 * honoured everywhere (request client, BullMQ, metrics, the CLI) and reconnects on the same schedule.
 */
export function createRedisClient(topology: RedisTopology, behaviour: ConnectionBehaviour): RedisClient {
  switch (topology.kind) {
    case 'server':
      return new Redis(topology.url.reveal(), { ...behaviour, retryStrategy: reconnectDelay });
    case 'sentinel':
      return new Redis(sentinelOptions(topology, behaviour));
    case 'cluster':
      return new SettlingCluster(
        topology.nodes.map(({ host, port }) => ({ host, port })),
        clusterOptions(topology, behaviour),
      );
  }
}

/**
 * BullMQ's `connection` option. One server and Sentinel: options, so each queue and worker opens and
 * closes its own connections as before. A Cluster must be handed over as a client: BullMQ's queues
 * share it and its workers duplicate it for their blocking reads; the caller closes it.
 */
export function queueConnection(topology: RedisTopology): ConnectionOptions {
  switch (topology.kind) {
    case 'server':
      return { url: topology.url.reveal(), ...QUEUE_CONNECTION, retryStrategy: reconnectDelay };
    case 'sentinel':
      return { ...sentinelOptions(topology, QUEUE_CONNECTION), retryStrategy: reconnectDelay };
    case 'cluster':
      return createRedisClient(topology, QUEUE_CONNECTION);
  }
}

/**
 * BullMQ's key prefix. On a Redis Cluster every key one BullMQ script touches must hash to one slot,
 * and a flow's parent and children live in different queues: the `{bull}` hash tag puts every queue
 * in the same slot (unless REDIS_PREFIX brings its own tag). One server and Sentinel have no slots and
 * keep the prefix earlier releases used, so their queued jobs, delayed retries and schedules carry
 * over an upgrade.
 */
export function queuePrefix(topology: RedisTopology['kind'], redisPrefix: string): string {
  if (topology !== 'cluster' || hasHashTag(redisPrefix)) return `${redisPrefix}bull`;
  return `${redisPrefix}{bull}`;
}

/** Whether every key under this prefix hashes by the prefix's own `{tag}` (REDIS_PREFIX allows only a leading one). */
export function hasHashTag(prefix: string): boolean {
  return /^\{[^}]+\}/.test(prefix);
}

/** The master nodes of a Cluster, or the one server: what readiness and the start-up checks ask. */
export function masterNodes(client: RedisClient): Redis[] {
  return client instanceof Cluster ? client.nodes('master') : [client];
}

/** Each Cluster's wait for its next 'ready' or 'end', shared by every pending `connect()` so listeners never pile up. */
const nextReadyOrEnd = new WeakMap<Cluster, Promise<void>>();

function readyOrEnd(cluster: Cluster): Promise<void> {
  let next = nextReadyOrEnd.get(cluster);
  if (!next) {
    next = new Promise<void>((resolve, reject) => {
      const ready = () => {
        nextReadyOrEnd.delete(cluster);
        cluster.off('end', end);
        resolve();
      };
      const end = () => {
        nextReadyOrEnd.delete(cluster);
        cluster.off('ready', ready);
        reject(new Error('Connection is closed.'));
      };
      cluster.once('ready', ready).once('end', end);
    });
    nextReadyOrEnd.set(cluster, next);
  }
  return next;
}

/**
 * ioredis's Cluster, except that `connect()` settles. When the ready check of a connect attempt fails
 * (CLUSTER INFO says `cluster_state:fail`, or reaches the dead node, while a master fails over), ioredis
 * reconnects on its own and the client turns 'ready' again, but the promise the caller holds is dropped
 * and never settles (redis/ioredis#709). BullMQ awaits `connect()` of a worker's blocking client after it
 * resets that client (its watchdog or a failed BZPOPMIN); the worker then never fetched a job again. Here
 * the promise also settles by the client's next 'ready' (resolved) or 'end' (rejected, as BullMQ expects
 * of a closed client). `duplicate()` keeps the class, so BullMQ's per-worker blocking clients are these too.
 */
class SettlingCluster extends Cluster {
  constructor(
    private readonly seeds: ClusterNode[],
    options: ClusterOptions,
  ) {
    super(seeds, options);
  }

  override connect(): Promise<void> {
    return Promise.race([super.connect(), readyOrEnd(this)]);
  }

  override duplicate(overrideStartupNodes: ClusterNode[] = [], overrideOptions: ClusterOptions = {}): Cluster {
    return new SettlingCluster(overrideStartupNodes.length > 0 ? overrideStartupNodes : this.seeds, { ...this.options, ...overrideOptions });
  }
}

type SentinelTopology = Extract<RedisTopology, { kind: 'sentinel' }>;

function sentinelOptions(topology: SentinelTopology, behaviour: ConnectionBehaviour): RedisOptions {
  return {
    ...behaviour,
    retryStrategy: reconnectDelay,
    ...nodeAccess(topology),
    sentinels: topology.sentinels.map(({ host, port }) => ({ host, port })),
    name: topology.masterName,
    sentinelPassword: topology.sentinelPassword?.reveal(),
    sentinelRetryStrategy: reconnectDelay,
    sentinelTLS: topology.tls ? {} : undefined,
    enableTLSForSentinelMode: topology.tls,
    // No `failoverDetector`: its sentinel subscriptions outlive the connection to a master that died, and
    // the +switch-master they then receive closes the connector in the middle of the reconnect already
    // under way; ioredis takes that for a deliberate close and ends the client for good ('end', every
    // command "Connection is closed."). A killed master closes its sockets, so each reconnect asks the
    // sentinels again and reaches the promoted replica without it.
  };
}

function nodeAccess(access: RedisNodeAccess): Pick<RedisOptions, 'username' | 'password' | 'tls'> {
  return { username: access.username, password: access.password?.reveal(), tls: access.tls ? {} : undefined };
}

function clusterOptions(topology: RedisNodeAccess, behaviour: ConnectionBehaviour): ClusterOptions {
  const { enableOfflineQueue, enableAutoPipelining, lazyConnect, ...perNode } = behaviour;
  return {
    enableOfflineQueue,
    enableAutoPipelining,
    lazyConnect,
    clusterRetryStrategy: reconnectDelay,
    redisOptions: { ...perNode, ...nodeAccess(topology) },
    // With TLS the certificate names the node's host name: connect by that name, not its resolved address
    // (what managed offerings such as ElastiCache need).
    ...(topology.tls ? { dnsLookup: (address: string, callback: (error: null, address: string) => void) => callback(null, address) } : {}),
  };
}
