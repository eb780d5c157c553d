import { Queue } from 'bullmq';
import { Cluster } from 'ioredis';
import { loadConfig, queueConnection, queuePrefix } from '@foresight/platform';
import { eventually } from './eventually';

/**
 * Waits until none of `queues` holds a job whose data `concerns` that is still to run (waiting,
 * delayed or active), leaving out the next runs of job schedulers: what an action set off has run
 * to its end, so a duplicate or a refused delivery it would cause has shown by then. This is what
 * a test waits on before counting what did NOT happen. `queues` go in the order work flows through
 * them (training, domain-events, webhooks): a job queues the next before it completes.
 */
export async function queuedWorkDone(
  env: Record<string, string>,
  queues: string[],
  concerns: (data: Record<string, unknown>) => boolean,
  timeoutMs = 60_000,
): Promise<void> {
  // Whatever Redis topology the suite's processes run on, reached as they reach it.
  const config = loadConfig(env);
  const connection = queueConnection(config.redis);
  const opened = queues.map((name) => new Queue(name, { connection, prefix: queuePrefix(config.redis.kind, config.redisPrefix) }));
  try {
    await eventually(
      `the jobs of ${queues.join(', ')} to finish`,
      async () => {
        for (const queue of opened) {
          const open = await queue.getJobs(['waiting', 'prioritized', 'delayed', 'active', 'waiting-children']);
          const left = open.filter((job) => !job.repeatJobKey && concerns(job.data as Record<string, unknown>));
          if (left.length > 0) {
            const states = await Promise.all(left.map(async (job) => `${job.name} (${job.id}, ${await job.getState()})`));
            throw new Error(`${queue.name} still holds ${states.join(', ')}`);
          }
        }
        return true;
      },
      timeoutMs,
    );
  } finally {
    await Promise.all(opened.map((queue) => queue.close()));
    if (connection instanceof Cluster) connection.disconnect();
  }
}
