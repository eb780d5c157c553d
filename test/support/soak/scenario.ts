import { setTimeout as sleep } from 'node:timers/promises';
import { createRandom } from '@foresight/platform';
import { eventually } from '../eventually';
import { request } from '../http';
import { learnablePopulation, promotionRunsDone, sendEvents, settledModel } from '../training';
import { Receiver, verifySignature } from '../webhook-receiver';
import { type Check, erasureCheck, eventsCheck, exitsCheck, faultsCheck, latencyCheck, loggedErrorsCheck, scoringCheck, webhooksCheck } from './checks';
import { SoakCluster } from './cluster';
import { FAULT_KINDS, injectFaults } from './faults';
import { SoakLoad } from './load';
import { type RssSample, RssSampler } from './memory';

export interface SoakOptions {
  seed: number;
  /** How long the mixed load runs; the faults are spread over it between warm-up and cool-down. */
  loadMs: number;
  /** Ingestion requests per second (predictions at half this rate). */
  rate: number;
  /** Users with history the model is trained on; the load sends events for them and asks about them. */
  users: number;
  /** Users erased one by one while the load runs. */
  erasures: number;
  /** Rounds of every fault kind (each kind once per round, seeded order). */
  faultRounds: number;
  /** Judged bound on recovery after each fault, and the least quiet left after each; undefined: printed, not judged (the e2e suite asserts no timing). */
  recoveryBoundMs?: number;
  /** Load before the first fault (and half of it after the last one's slot); each process's RSS slope starts this long after it was first seen (restarted ones warm up again). */
  warmupMs: number;
  /** Whether RSS slopes are judged (only meaningful over a long run). */
  judgeMemory: boolean;
  /**
   * Heap snapshots of the first API and the first worker (the ones no fault kills) at these offsets
   * into the load, written to `dir` (node's --heapsnapshot-signal). Writing one stops the process for
   * seconds and doubles its heap meanwhile: a run that takes them is for finding a leak, not for judging.
   */
  heapSnapshots?: { atMs: number[]; dir: string };
  /** Every API and worker writes a line per garbage collection to its log (--trace-gc-nvp): what was promoted, and what survived each full collection. */
  traceGc?: boolean;
  /** Given every memory sample once the load is over. */
  onMemorySamples?: (samples: readonly RssSample[]) => void;
  /** Given what every API and worker process wrote, by slot and pid, once the checks are done: to tell what a process was doing when its memory moved. */
  onProcessLogs?: (logs: ReadonlyArray<{ process: string; pid: number; output: string }>) => void;
}

/** The receiver's share of requests answered 500: deliveries must be retried until one gets a 2xx. */
const RECEIVER_FAILURE_SHARE = 0.2;
/** Every retry of a failed delivery within about two minutes, so the checks need not wait 24 h. */
const WEBHOOK_RETRY_SCHEDULE = '1s,2s,5s,10s,20s,30s,60s';
const DRAIN_TIMEOUT_MS = 5 * 60_000;
/** Load after each fault beyond the recovery bound, so errors ending just inside it are seen to end. */
const QUIET_MARGIN_MS = 10_000;
const START_TIMEOUT_MS = 5 * 60_000;

/**
 * The whole soak, shared by `npm run soak` and the e2e suite: Foresight on its own PostgreSQL and
 * Redis, a trained model and a webhook, the mixed load while every fault kind is injected on a seeded
 * schedule, then a drain (scoring runs and webhook retries finish) and every check of issue #41.
 */
export async function runSoak(options: SoakOptions): Promise<Check[]> {
  // A restart under load on a shared machine can take minutes; the supervisor waits that long, as Kubernetes' startup probe would.
  process.env.TEST_START_TIMEOUT_MS ??= String(START_TIMEOUT_MS);
  const random = createRandom(options.seed);
  const signed: boolean[] = [];
  const receiverRandom = createRandom(options.seed + 1);
  // Known once the webhook is made; no delivery can come before.
  let secret: string | undefined;
  // Each request's signature is checked as it arrives, as a receiver would (CONTRACT.md: its timestamp is the time of sending).
  const receiver: Receiver = await Receiver.start((n) => {
    const status = receiverRandom() < RECEIVER_FAILURE_SHARE ? 500 : 200;
    signed.push(secret !== undefined && verifySignature(secret, receiver.requests[n - 1]));
    return status;
  });
  const snapshotEnv: Record<string, string> = options.heapSnapshots ? { NODE_OPTIONS: `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${options.heapSnapshots.dir}` } : {};
  const nodeFlags = options.traceGc ? ['--trace-gc-nvp'] : [];
  const cluster = await SoakCluster.start({ apis: 2, workers: 2, env: { WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', WEBHOOK_RETRY_SCHEDULE, ...snapshotEnv }, nodeFlags });
  const memory = new RssSampler(cluster);
  try {
    console.log(`own PostgreSQL on port ${cluster.postgres.port}, own Redis on port ${cluster.redis.port} (AOF on), APIs at ${cluster.apiUrls.join(', ')}, 2 workers`);
    const api = cluster.apiUrls[0];
    const token = cluster.token;
    const erasable = Array.from({ length: options.erasures }, (_, i) => `erasable-${i}`);
    await sendEvents(api, token, [...learnablePopulation(options.users, 60, { seed: options.seed }), ...learnablePopulation(options.erasures, 60, { seed: options.seed + 2, prefix: 'erasable-' })]);
    const model = await request<{ id: string }>(`${api}/v1/models`, { token, method: 'POST', body: { name: 'checkout', targetEvent: 'checkout' } });
    await request(`${api}/v1/models/retrain`, { token, method: 'POST', body: { modelId: model.body.id } });
    const settled = await settledModel(api, token, model.body.id, cluster.workers[0].current!, 10 * 60_000);
    if (settled.status !== 'active') throw new Error(`the first training failed: ${settled.status} ${settled.lastError}`);
    await promotionRunsDone(cluster, cluster.organizationId, 10 * 60_000);
    const webhook = await request<{ secret: string }>(`${api}/v1/webhooks`, {
      token,
      method: 'POST',
      body: { url: receiver.url, events: ['model.retrained', 'model.failed', 'prediction.updated', 'drift.detected'] },
    });
    if (webhook.status !== 200) throw new Error(`POST /v1/webhooks answered ${webhook.status}: ${JSON.stringify(webhook.body)}`);
    secret = webhook.body.secret;
    console.log(`trained ${model.body.id} on ${options.users + options.erasures} users; webhook to a receiver failing ${RECEIVER_FAILURE_SHARE * 100}% of requests`);

    const users = Array.from({ length: options.users }, (_, i) => `user-${i}`);
    const load = new SoakLoad(cluster, random, {
      rate: options.rate,
      users,
      erasable,
      modelId: model.body.id,
      retrainEveryMs: options.loadMs / 6,
      scoreEveryMs: options.loadMs / 5,
      eraseEveryMs: options.loadMs / (options.erasures + 1),
    });
    const begin = Date.now();
    const warmupMs = options.warmupMs;
    const faultEveryMs = (options.loadMs - 1.5 * warmupMs) / (options.faultRounds * FAULT_KINDS.length);
    // Recovery is judged when the schedule can leave the bound (and a margin) of load after every fault.
    const boundMs = options.recoveryBoundMs !== undefined && faultEveryMs >= options.recoveryBoundMs + QUIET_MARGIN_MS ? options.recoveryBoundMs : undefined;
    if (options.recoveryBoundMs !== undefined && boundMs === undefined) {
      console.log(`recovery bound of ${options.recoveryBoundMs / 1000} s not judged: a fault every ${(faultEveryMs / 1000).toFixed(0)} s leaves less load than that after each`);
    }
    memory.start();
    const snapshotTimers = (options.heapSnapshots?.atMs ?? []).map((atMs) => setTimeout(() => snapshot(cluster), atMs));
    console.log(`load: ${options.loadMs / 60_000} min at ${options.rate} ingestion + ${options.rate / 2} prediction requests/s; ${options.faultRounds * FAULT_KINDS.length} faults (seed ${options.seed})`);
    const quietMs = boundMs === undefined ? 0 : boundMs + QUIET_MARGIN_MS;
    const faults = injectFaults(cluster, random, begin, warmupMs, options.loadMs - warmupMs / 2, options.faultRounds, quietMs);
    // Faults that outlast their planned time (slow restarts on a busy machine) still happen under load, and are followed by some.
    const [, windows] = await Promise.all([load.run(options.loadMs, faults.then(() => sleep(Math.max(warmupMs / 2, quietMs)))), faults]);
    const loadEnd = Date.now();
    memory.stop();
    snapshotTimers.forEach(clearTimeout);
    options.onMemorySamples?.(memory.all());
    console.log(`load over at ${new Date().toISOString()}; draining scoring runs and webhook retries`);
    await drain(cluster);

    return [
      await checked('events: acknowledged stored exactly once', () => eventsCheck(cluster, load)),
      await checked('erasures: gone from every store', () => erasureCheck(cluster, load)),
      await checked(
        'webhooks: at least once, signed, never twice with a 2xx unless a worker was killed right after it',
        () => webhooksCheck(cluster, receiver, signed, windows.filter((fault) => fault.kind === 'kill -9 of a worker').map((fault) => fault.start)),
      ),
      await checked('scoring runs: complete, each user once', () => scoringCheck(cluster, load)),
      await checked('processes: no exit but the planned kills', () => exitsCheck(cluster)),
      await checked('faults: error rates and recovery', () => faultsCheck(load.samples, windows, loadEnd, boundMs)),
      await checked('memory: RSS slope after warm-up', () => memory.check(warmupMs, options.judgeMemory)),
      await checked('latency per phase (context, not judged)', () => latencyCheck(load.samples, windows, begin)),
      await checked('logged errors (context, not judged)', () => loggedErrorsCheck(cluster)),
    ];
  } finally {
    options.onProcessLogs?.([...cluster.apis, ...cluster.workers].flatMap((slot) => slot.outputs().map((logged) => ({ process: slot.name, ...logged }))));
    memory.stop();
    await cluster.stop();
    await receiver.close();
  }
}

/** SIGUSR2 to the first API and worker: node writes a heap snapshot of each (--heapsnapshot-signal). */
function snapshot(cluster: SoakCluster): void {
  for (const process of [cluster.apis[0], cluster.workers[0]]) {
    const pid = process.current?.child.pid;
    console.log(`[${new Date().toISOString()}] heap snapshot of ${process.name} (pid ${pid})`);
    process.current?.child.kill('SIGUSR2');
  }
}

/** A check that could not be made is a failed check, and the others are still made. */
async function checked(title: string, check: () => Promise<Check> | Check): Promise<Check> {
  try {
    return await check();
  } catch (error) {
    return { title, lines: [], failures: [`the check itself failed: ${(error as Error).stack ?? String(error)}`] };
  }
}

/** Until no scoring run is queued or running and no webhook delivery is pending (or the drain times out: the checks then say what is left). */
async function drain(cluster: SoakCluster): Promise<void> {
  await eventually(
    'scoring runs and webhook deliveries to settle',
    async () => {
      const [{ runs, deliveries }] = await cluster.sql<{ runs: number; deliveries: number }>(
        `SELECT (SELECT count(*)::int FROM scoring_runs WHERE organization_id = $1 AND state IN ('queued', 'running')) AS runs,
                (SELECT count(*)::int FROM webhook_deliveries WHERE organization_id = $1 AND status = 'pending') AS deliveries`,
        [cluster.organizationId],
      );
      return runs === 0 && deliveries === 0 ? true : undefined;
    },
    DRAIN_TIMEOUT_MS,
  ).catch((error: unknown) => console.log(`drain: ${(error as Error).message}`));
}
