import { Queue, Worker } from 'bullmq';
import { Cluster } from 'ioredis';
import { queueConnection, queuePrefix, Secret } from '@foresight/platform';
import { eventually } from '../support/eventually';
import { RedisCluster } from '../support/redis-cluster';
import { NODE_PASSWORD } from '../support/redis-servers';

const QUEUE_NAMES = Array.from({ length: 8 }, (_, i) => `failover-${i}`);
/** BullMQ's blocking read: BZPOPMIN for drainDelay (5 s), abandoned by its watchdog a second later. */
const BLOCKING_READ_MS = 5_000;
/** Longer than two blocking reads: every worker resets its blocking client while no master serves the queues. */
const FAILOVER_HELD_BACK_MS = 12_000;

/**
 * BullMQ workers on a Redis Cluster, connected as the worker process connects them, when the master
 * holding the queues dies and its replica is slow to take over. A worker resets its blocking client
 * and awaits its `connect()`; ioredis's Cluster dropped that promise when the attempt's ready check
 * met `cluster_state:fail`, and the worker never took a job again though its client was ready.
 */
describe('BullMQ workers across a slow Redis Cluster failover', () => {
  let cluster: RedisCluster;
  let connection: Cluster;
  const workers: Worker[] = [];
  const queues: Queue[] = [];
  const processed = new Map<string, Set<string>>(QUEUE_NAMES.map((name) => [name, new Set<string>()]));
  const waitingOn = (jobs: number) => QUEUE_NAMES.filter((name) => (processed.get(name) as Set<string>).size < jobs);

  beforeAll(async () => {
    cluster = await RedisCluster.start();
    const nodes = cluster.nodes.slice(0, 2).map((node) => ({ host: '127.0.0.1', port: node.port }));
    connection = queueConnection({ kind: 'cluster', nodes, password: new Secret(NODE_PASSWORD), tls: false }) as Cluster;
  }, 120_000);

  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.close(true)));
    await Promise.all(queues.map((queue) => queue.close()));
    connection?.disconnect();
    await cluster?.stop();
  });

  it('every worker takes jobs again once the replica has taken over', async () => {
    const prefix = queuePrefix('cluster', 'it:');
    for (const name of QUEUE_NAMES) {
      const worker = new Worker(name, async (job) => void (processed.get(name) as Set<string>).add(job.id as string), { connection, prefix });
      // Connection errors while the master is gone are expected; what counts is that jobs are taken afterwards.
      worker.on('error', () => undefined);
      workers.push(worker);
      queues.push(new Queue(name, { connection, prefix }));
      // One worker after the other: their blocking reads end at different moments, as in a worker process.
      await worker.waitUntilReady();
      await new Promise((resolve) => setTimeout(resolve, 600));
    }
    await Promise.all(queues.map((queue) => queue.add('before', {})));
    await eventually('every worker to take a job', () => (waitingOn(1).length === 0 ? true : undefined));

    const slot = await cluster.nodes[0].ask(NODE_PASSWORD, (redis) => redis.cluster('KEYSLOT', `${prefix}:${QUEUE_NAMES[0]}:wait`));
    const master = await cluster.masterOf(slot);
    const replica = await cluster.replicaOf(master);
    // The workers' blocking reads began when they took their jobs: the master dies late in them, so the
    // watchdog cuts them while ioredis still retries them and the cluster has no master for the slot.
    await new Promise((resolve) => setTimeout(resolve, BLOCKING_READ_MS - 1_000));
    replica.pause();
    master.crash();
    await new Promise((resolve) => setTimeout(resolve, FAILOVER_HELD_BACK_MS));
    replica.resume();
    await cluster.settled(slot, master);

    await Promise.all(queues.map((queue) => queue.add('after', {})));
    await eventually('every worker to take a job after the failover', () => {
      const stuck = waitingOn(2);
      if (stuck.length > 0) throw new Error(`no job taken after the failover on ${stuck.join(', ')}`);
      return true;
    });
  }, 180_000);
});
