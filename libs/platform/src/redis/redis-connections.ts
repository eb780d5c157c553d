import type { ConnectionOptions } from 'bullmq';
import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
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
      return new Cluster(
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
