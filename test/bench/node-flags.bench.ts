// npm run bench:node-flags — how the service runs node (scripts/node-flags.json) against plain node, in the
// same run: the API under batched ingestion (alternating rounds: CPU per event, events/s, the most RSS),
// and a worker retraining a growing organization (RSS after each run, and the most it held).
//
// NODE_FLAGS_ROUNDS (default 6): ingestion rounds of 10 s per side. NODE_FLAGS_RETRAINS (default 12):
// retrains per worker, each after about 17,000 more events from the same 400 users.
import { request } from '../support/http';
import { NODE_DEFAULTS, processCpuSeconds, SERVICE_RUNTIME, startApi, startWorker, statusKiB } from '../support/processes';
import { leastSquaresSlope, median } from '../support/statistics';
import { TestSuite } from '../support/suite';
import { idle } from '../support/traffic';
import { learnablePopulation, sendEvents, settledModel } from '../support/training';
import { benchmark } from './support/benchmark';
import { CpuPerUnit, processSide } from './support/cpu';
import { load } from './support/measure';

const ROUNDS = Number(process.env.NODE_FLAGS_ROUNDS ?? 6);
const RETRAINS = Number(process.env.NODE_FLAGS_RETRAINS ?? 12);
const ROUND_SECONDS = 10;
const BATCH = 500;
/** Retrains before this one are warm-up (V8 and the allocator sizing themselves): the growth is read from here on. */
const FIRST_READ_RETRAIN = 3;
const GENEROUS_LIMITS = ['--rate-limit', '100000000', '--burst', '200000000'];

const RUNTIMES = { 'plain node': NODE_DEFAULTS, 'node-flags.json': SERVICE_RUNTIME } as const;
type Side = keyof typeof RUNTIMES;
const SIDES = Object.keys(RUNTIMES) as Side[];

const mib = (pid: number) => statusKiB(pid, 'VmRSS') / 1024;

/** The most RSS `pid` reaches while `work` runs, sampled every 200 ms. */
async function peakDuring<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; peakMiB: number }> {
  let peakMiB = mib(pid);
  const timer = setInterval(() => (peakMiB = Math.max(peakMiB, mib(pid))), 200);
  try {
    return { result: await work(), peakMiB };
  } finally {
    clearInterval(timer);
  }
}

benchmark('bench_node_flags', async (suite) => {
  console.log(`bench:node-flags: node-flags.json is ${JSON.stringify({ flags: SERVICE_RUNTIME.flags, env: SERVICE_RUNTIME.env })}`);
  await ingestion(suite);
  await retraining();
});

/** One API per side on the same database, driven in alternation so drift hits both. */
async function ingestion(suite: TestSuite): Promise<void> {
  const { token } = await suite.createOrganization('Bench', GENEROUS_LIMITS);
  const oneEvent = (i: number) => ({ event: i % 4 === 0 ? 'scroll' : 'click', userId: `bench-user-${i % 1000}`, properties: { button: 'buy', depth: 0.6 } });
  const body = JSON.stringify(Array.from({ length: BATCH }, (_, i) => oneEvent(i)));
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token.secret}` };
  const sides = [];
  for (const side of SIDES) {
    const api = await startApi({ ...suite.env, LOG_LEVEL: 'warn' }, undefined, RUNTIMES[side]);
    sides.push({ side, api, cpu: new CpuPerUnit({ API: processSide(api.child.pid) }, 'events'), rates: [] as number[], peakMiB: 0 });
  }
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const one of round % 2 === 0 ? sides : [...sides].reverse()) {
        const run = () => load(`${one.api.baseUrl}/v1/events`, { method: 'POST', headers, body, connections: 8, durationSeconds: ROUND_SECONDS });
        const { result, peakMiB } = await peakDuring(one.api.child.pid as number, () => one.cpu.measure(run, (r) => r.requestsPerSecond * ROUND_SECONDS * BATCH));
        if (result.non2xx + result.errors > 0) throw new Error(`${one.side}: ${result.non2xx} non-2xx, ${result.errors} errors`);
        one.rates.push(result.requestsPerSecond * BATCH);
        one.peakMiB = Math.max(one.peakMiB, peakMiB);
      }
    }
    console.log(`\nAPI, batched ingestion (${BATCH} events a request, 8 clients, ${ROUNDS} alternating ${ROUND_SECONDS} s rounds per side)`);
    console.log(`${'runtime'.padEnd(18)}${'µs CPU/event'.padStart(14)}${'events/s (median)'.padStart(19)}${'most RSS MiB'.padStart(14)}   events/s per round`);
    for (const { side, cpu, rates, peakMiB } of sides) {
      console.log(`${side.padEnd(18)}${cpu.microseconds().toFixed(2).padStart(14)}${median(rates).toFixed(0).padStart(19)}${peakMiB.toFixed(0).padStart(14)}   ${rates.map((r) => r.toFixed(0)).join(' ')}`);
    }
    const [plain, flagged] = sides;
    console.log(
      `node-flags.json / plain node: CPU per event ${(flagged.cpu.microseconds() / plain.cpu.microseconds()).toFixed(3)}, ` +
        `events/s ${(median(flagged.rates) / median(plain.rates)).toFixed(3)}, most RSS ${(flagged.peakMiB / plain.peakMiB).toFixed(3)}`,
    );
  } finally {
    await Promise.all(sides.map(({ api }) => api.stop()));
  }
}

/** A worker per side, each with an organization of its own (its own database), retraining as the organization's events grow. */
async function retraining(): Promise<void> {
  const runs = await Promise.all(SIDES.map((side) => retrainRounds(side)));
  console.log(`\nworker, ${RETRAINS} retrains of one model as 400 users' events grow by ~17,000 a retrain (both sides at once); RSS 5 s after each run, MiB`);
  console.log(`${'retrain'.padEnd(9)}${'events'.padStart(9)}${SIDES.map((side) => side.padStart(18)).join('')}`);
  for (let i = 0; i < RETRAINS; i++) console.log(`${String(i + 1).padEnd(9)}${String(runs[0].events[i]).padStart(9)}${runs.map((run) => run.after[i].toFixed(0).padStart(18)).join('')}`);
  for (const [i, side] of SIDES.entries()) {
    const { after, peakMiB, cpuSeconds } = runs[i];
    const judged = after.slice(FIRST_READ_RETRAIN - 1);
    console.log(
      `${side}: from retrain ${FIRST_READ_RETRAIN} on, ${judged[0].toFixed(0)} -> ${judged[judged.length - 1].toFixed(0)} MiB, ` +
        `least-squares ${leastSquaresSlope(judged.map((rss, i) => [i, rss] as const)).toFixed(2)} MiB a retrain; the most it held ${peakMiB.toFixed(0)} MiB; worker CPU ${cpuSeconds.toFixed(1)} s (training processes not counted)`,
    );
  }
  console.log(`node-flags.json / plain node: the most RSS ${(runs[1].peakMiB / runs[0].peakMiB).toFixed(3)}, worker CPU ${(runs[1].cpuSeconds / runs[0].cpuSeconds).toFixed(3)}`);
}

async function retrainRounds(side: Side): Promise<{ events: number[]; after: number[]; peakMiB: number; cpuSeconds: number }> {
  const suite = await TestSuite.create(`bench_node_flags_${SIDES.indexOf(side)}`);
  const { token } = await suite.createOrganization('Bench', GENEROUS_LIMITS);
  const api = await startApi({ ...suite.env, LOG_LEVEL: 'warn' });
  const worker = await startWorker(suite.env, RUNTIMES[side]);
  const pid = worker.child.pid as number;
  const auth = { token: token.secret };
  try {
    const model = await request<{ id: string }>(`${api.baseUrl}/v1/models`, { ...auth, method: 'POST', body: { name: 'bench', targetEvent: 'checkout' } });
    const events: number[] = [];
    const after: number[] = [];
    let peakMiB = 0;
    for (let retrain = 1; retrain <= RETRAINS; retrain++) {
      const batch = learnablePopulation(400, 30, { seed: retrain * 7919 });
      await sendEvents(api.baseUrl, token.secret, batch);
      events.push((events.at(-1) ?? 0) + batch.length);
      const round = await peakDuring(pid, async () => {
        // The model is `retraining` once the request is answered; settled, the run is over.
        await request(`${api.baseUrl}/v1/models/retrain`, { ...auth, method: 'POST', body: { modelId: model.body.id } });
        return settledModel(api.baseUrl, token.secret, model.body.id, worker);
      });
      peakMiB = Math.max(peakMiB, round.peakMiB);
      await idle(5_000);
      after.push(mib(pid));
    }
    return { events, after, peakMiB, cpuSeconds: processCpuSeconds(pid) };
  } finally {
    await worker.stop();
    await api.stop();
    await suite.destroy();
  }
}
