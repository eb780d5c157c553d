// npm run soak:hostile — a well-behaved organization sends events and asks for predictions at a fixed
// rate, first alone (baseline), then beside hostile clients (the hostile phase), in one run against one
// API process: slow clients trickling headers and bodies on raw sockets, gzip bombs and oversized bodies,
// floods of unauthenticated and invalid-token requests from several loopback addresses (the API trusts no
// proxy by default, so each client address is a socket bound to its own 127.0.0.x), and hostile JSON.
// Prints the well-behaved organization's p50/p99 latency and error rate per phase and their ratio, and the
// API's RSS, open file descriptors and sockets at the end of each phase. Timings are shown, never judged:
// it exits non-zero only when something is wrong (a 5xx to anyone, an acknowledged event not stored, the
// API gone). Loopback only; every loop stops by itself when its phase ends.
//
// SOAK_MINUTES (default 10): the hostile phase. SOAK_BASELINE_MINUTES (default 2, at most SOAK_MINUTES).
// SOAK_SLOW_SOCKETS (default 200): slow clients held open at once. SOAK_RATE (default 20): the
// well-behaved organization's requests per second, half ingestion, half predictions.
import { readdirSync, readlinkSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { request } from '../support/http';
import { cliJson, type RunningProcess, startApi, startWorker, statusKiB } from '../support/processes';
import { promotionRunsDone, settledModel } from '../support/training';
import { benchmark } from './support/benchmark';
import { DAYS, MODELS } from './support/demo-models';

const HOSTILE_MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const BASELINE_MINUTES = Math.min(Number(process.env.SOAK_BASELINE_MINUTES ?? 2), HOSTILE_MINUTES);
const SLOW_SOCKETS = Number(process.env.SOAK_SLOW_SOCKETS ?? 200);
const RATE = Number(process.env.SOAK_RATE ?? 20);
const USERS = 2_000;
const EVENTS_PER_REQUEST = 10;
/** Flooding clients, each from its own loopback address, and requests each keeps in flight. */
const FLOOD_ADDRESSES = 6;
const FLOOD_IN_FLIGHT = 2;
const LIMIT = 1024 * 1024;

interface PhaseFigures {
  name: string;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  errorRate: number;
  statuses: Record<string, number>;
  rssMiB: number;
  fds: number;
  sockets: number;
}

benchmark('soak_hostile', async (suite) => {
  const good = await suite.createOrganization('Well-behaved', ['--rate-limit', '1000000', '--burst', '2000000']);
  // A tenant that turned hostile: its own valid token, the default limits.
  const noisy = await suite.createOrganization('Noisy neighbour');
  const seeded = await cliJson<{ accepted: number }>(suite.env, ['demo', 'seed', '--org', good.organization.id, '--users', String(USERS), '--days', String(DAYS)]);
  console.log(`seeded ${USERS} users, ${seeded.accepted} events`);
  await suite.sql('ANALYZE');

  const api = await startApi({ ...suite.env, LOG_LEVEL: 'warn' });
  const worker = await startWorker(suite.env);
  const failures: string[] = [];
  try {
    const token = good.token.secret;
    const model = await request<{ id: string }>(`${api.baseUrl}/v1/models`, { token, method: 'POST', body: MODELS[0] });
    await request(`${api.baseUrl}/v1/models/retrain`, { token, method: 'POST', body: { modelId: model.body.id } });
    const settled = await settledModel(api.baseUrl, token, model.body.id, worker, 10 * 60_000);
    if (settled.status !== 'active') throw new Error(`${MODELS[0].name}: ${settled.status} ${settled.lastError}`);
    await promotionRunsDone(suite, good.organization.id, 10 * 60_000);
    const users = (await suite.sql<{ user_id: string }>('SELECT user_id FROM user_activity ORDER BY user_id')).map((r) => r.user_id);
    console.log(`model ${MODELS[0].name} serving; ${users.length} users to ask about`);

    const wellBehaved = new WellBehaved(api.baseUrl, token, users);
    const figures: PhaseFigures[] = [];
    console.log(`\nbaseline: ${BASELINE_MINUTES} min of the well-behaved organization alone (${RATE} req/s)`);
    figures.push(await phase('baseline', api, wellBehaved, BASELINE_MINUTES));

    console.log(`hostile: ${HOSTILE_MINUTES} min beside ${SLOW_SOCKETS} slow sockets, bombs, floods from ${FLOOD_ADDRESSES} addresses, invalid tokens, hostile JSON`);
    const hostile = new HostileClients(api.baseUrl, noisy.token.secret);
    const hostileDone = hostile.run(HOSTILE_MINUTES * 60_000);
    // Read while the slow sockets are still held: the phase's end is when the API holds the most.
    figures.push(await phase('hostile', api, wellBehaved, HOSTILE_MINUTES));
    await hostileDone;
    const slow = hostile.slowSockets();
    hostile.stop();

    report(figures);
    console.log(`\nhostile clients' answers: ${histogram(hostile.statuses)}`);
    console.log(
      `slow sockets at the end of the hostile phase: ${slow.open} of ${SLOW_SOCKETS} still open, the oldest open for ${(slow.oldestMs / 1000).toFixed(0)} s; ` +
        `${slow.closedByServer} closed by the server during the phase (each replaced by a new one)`,
    );

    // Correctness only: nobody gets a 5xx, every event the API acknowledged is stored, the API is still there.
    for (const f of figures) {
      const fives = Object.entries(f.statuses).filter(([s]) => s.startsWith('5'));
      if (fives.length > 0) failures.push(`the well-behaved organization got 5xx in the ${f.name} phase: ${histogram(Object.fromEntries(fives))}`);
    }
    const hostileFives = Object.entries(hostile.statuses).filter(([s]) => s.startsWith('5'));
    if (hostileFives.length > 0) failures.push(`hostile clients got 5xx: ${histogram(Object.fromEntries(hostileFives))}`);
    const stored = await suite.sql<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE organization_id = $1 AND message_id = ANY($2)', [
      good.organization.id,
      wellBehaved.acknowledged,
    ]);
    console.log(`acknowledged events of the well-behaved organization: ${wellBehaved.acknowledged.length}, stored: ${stored[0].n}`);
    if (stored[0].n !== wellBehaved.acknowledged.length) failures.push(`${wellBehaved.acknowledged.length - stored[0].n} acknowledged events are not stored`);
    if (api.child.exitCode !== null) failures.push(`the API exited (${api.child.exitCode})`);
  } finally {
    await worker.stop();
    await api.stop();
  }
  if (failures.length > 0) throw new Error(`soak:hostile found:\n${failures.join('\n')}`);
});

/** Runs the well-behaved organization for one phase and reads the API's resources at its end. */
async function phase(name: string, api: RunningProcess, wellBehaved: WellBehaved, minutes: number): Promise<PhaseFigures> {
  const { latencies, statuses } = await wellBehaved.run(minutes * 60_000);
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? NaN;
  const total = Object.values(statuses).reduce((a, b) => a + b, 0);
  const errors = Object.entries(statuses).filter(([s]) => !s.startsWith('2')).reduce((a, [, n]) => a + n, 0);
  return { name, requests: total, p50Ms: at(0.5), p99Ms: at(0.99), errorRate: errors / Math.max(1, total), statuses, ...resourcesOf(api.child.pid as number) };
}

/** The API's resident memory and open file descriptors (sockets among them), from /proc. */
function resourcesOf(pid: number): { rssMiB: number; fds: number; sockets: number } {
  const rssKiB = statusKiB(pid, 'VmRSS');
  const fds = readdirSync(`/proc/${pid}/fd`);
  const sockets = fds.filter((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:');
    } catch {
      return false; // closed between the listing and the read
    }
  }).length;
  return { rssMiB: rssKiB / 1024, fds: fds.length, sockets };
}

function report(figures: PhaseFigures[]): void {
  console.log('\nsoak:hostile: the well-behaved organization (POST /v1/events of 10 events and GET /v1/predict, alternating, fixed rate)');
  console.log(`${'phase'.padEnd(10)}${'requests'.padStart(10)}${'p50 ms'.padStart(10)}${'p99 ms'.padStart(10)}${'errors'.padStart(10)}${'API RSS MiB'.padStart(13)}${'API fds'.padStart(9)}${'sockets'.padStart(9)}`);
  for (const f of figures) {
    console.log(
      `${f.name.padEnd(10)}${String(f.requests).padStart(10)}${f.p50Ms.toFixed(1).padStart(10)}${f.p99Ms.toFixed(1).padStart(10)}${`${(f.errorRate * 100).toFixed(2)}%`.padStart(10)}` +
        `${f.rssMiB.toFixed(0).padStart(13)}${String(f.fds).padStart(9)}${String(f.sockets).padStart(9)}`,
    );
  }
  const [base, hostile] = figures;
  console.log(`ratio hostile / baseline: p50 ${(hostile.p50Ms / base.p50Ms).toFixed(2)}, p99 ${(hostile.p99Ms / base.p99Ms).toFixed(2)}, error rate ${hostile.errorRate} vs ${base.errorRate}`);
  for (const f of figures) console.log(`${f.name} answers: ${histogram(f.statuses)}`);
}

function histogram(statuses: Record<string, number>): string {
  return Object.entries(statuses).sort(([a], [b]) => a.localeCompare(b)).map(([s, n]) => `${s} x${n}`).join(', ') || 'none';
}

/** One request on a keep-alive agent (bound to its client's address); the status and body, or the network error's code. */
function send(url: string, agent: Agent, options: { method?: string; headers?: Record<string, string>; body?: Buffer | string }): Promise<{ status: string; text: string }> {
  return new Promise((resolve) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: String(response.statusCode), text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', (error: NodeJS.ErrnoException) => resolve({ status: `network error (${error.code ?? error.message})`, text: '' }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ status: `network error (${error.code ?? error.message})`, text: '' }));
    req.end(options.body);
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

/**
 * Ingestion and predictions at a fixed rate, each request sent on its schedule whether or not earlier
 * ones have answered (an open loop, as bench's fixedRate), alternating between the two.
 */
class WellBehaved {
  /** messageIds of every event an answer acknowledged (200, accepted or duplicate). */
  readonly acknowledged: string[] = [];
  private sent = 0;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });

  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
    private readonly users: string[],
  ) {}

  async run(durationMs: number): Promise<{ latencies: number[]; statuses: Record<string, number> }> {
    const latencies: number[] = [];
    const statuses: Record<string, number> = {};
    const inFlight: Array<Promise<void>> = [];
    const started = performance.now();
    for (let i = 0; performance.now() - started < durationMs; i++) {
      await sleep(started + (i * 1000) / RATE - performance.now());
      inFlight.push(
        this.one(i % 2 === 0).then(({ status, ms }) => {
          statuses[status] = (statuses[status] ?? 0) + 1;
          if (ms !== undefined) latencies.push(ms);
        }),
      );
    }
    await Promise.all(inFlight);
    return { latencies, statuses };
  }

  private async one(ingest: boolean): Promise<{ status: string; ms?: number }> {
    const headers = { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' };
    const user = () => this.users[Math.floor(Math.random() * this.users.length)];
    const sent = performance.now();
    if (ingest) {
      const batch = this.sent++;
      const ids = Array.from({ length: EVENTS_PER_REQUEST }, (_, i) => `soak-${batch}-${i}`);
      const body = JSON.stringify(ids.map((messageId) => ({ event: 'page_view', userId: user(), messageId, properties: { url: 'https://shop.example/' } })));
      const answer = await send(`${this.baseUrl}/v1/events`, this.agent, { method: 'POST', headers, body });
      const ms = performance.now() - sent;
      if (answer.status === '200') {
        const counts = JSON.parse(answer.text) as { accepted: number; duplicates: number };
        if (counts.accepted + counts.duplicates === ids.length) this.acknowledged.push(...ids);
      }
      return { status: answer.status, ms: answer.status.startsWith('network') ? undefined : ms };
    }
    const answer = await send(`${this.baseUrl}/v1/predict?userId=${encodeURIComponent(user())}`, this.agent, { headers });
    return { status: answer.status, ms: answer.status.startsWith('network') ? undefined : performance.now() - sent };
  }
}

/** A hostile request: what to send, from which loopback address. */
interface HostileRequest {
  path: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: Buffer | string;
}

/** Bodies no client should send: bombs past the limit, oversized, deep, poisoned, not Unicode. */
function hostileBodies(): Array<{ headers: Record<string, string>; body: Buffer | string }> {
  const json = { 'content-type': 'application/json' };
  const gzip = { ...json, 'content-encoding': 'gzip' };
  return [
    { headers: gzip, body: gzipSync(Buffer.alloc(64 * LIMIT, 0x20)) },
    { headers: gzip, body: gzipSync(`[${'{"event":"x","userId":"u"},'.repeat(40_000)}{}]`) },
    { headers: { ...json, 'content-encoding': 'deflate' }, body: gzipSync('{"event":"x"}') },
    { headers: json, body: Buffer.alloc(2 * LIMIT, 0x61) },
    { headers: json, body: `${'['.repeat(100_000)}${']'.repeat(100_000)}` },
    { headers: json, body: `{"event":"x","userId":"u","properties":{"p":"${'\\ud800'.repeat(50_000)}"}}` },
    { headers: json, body: `{"batch":[{"type":"track","event":"x","userId":"u","properties":{"__proto__":{"admin":true}}}]}` },
    { headers: json, body: JSON.stringify(Array.from({ length: 1_000 }, (_, i) => ({ event: `e${i}`.repeat(100), userId: `${'a'.repeat(15_000)}@b.example` }))) },
  ];
}

/** Slow clients, bombs, floods and hostile JSON, all bounded in concurrency and stopping when their phase ends. */
class HostileClients {
  readonly statuses: Record<string, number> = {};
  private readonly slow = new Map<Socket, number>();
  private readonly bodies = hostileBodies();
  private closedByServer = 0;
  private stopping = false;

  constructor(
    private readonly baseUrl: string,
    private readonly noisyToken: string,
  ) {}

  async run(durationMs: number): Promise<void> {
    const { hostname, port } = new URL(this.baseUrl);
    const until = performance.now() + durationMs;
    for (let i = 0; i < SLOW_SOCKETS; i++) this.openSlow(hostname, Number(port), i);
    const floods = Array.from({ length: FLOOD_ADDRESSES }, (_, a) => {
      // 127.0.0.1 is the well-behaved organization's address: floods come from others.
      const agent = new Agent({ keepAlive: true, maxSockets: FLOOD_IN_FLIGHT, localAddress: `127.0.0.${10 + a}` });
      return Array.from({ length: FLOOD_IN_FLIGHT }, (_, k) => this.loop(until, agent, (n) => this.floodRequest(a, k, n)));
    });
    await Promise.all(floods.flat());
  }

  /** Closes the slow sockets, which run() leaves open so that they can be counted. */
  stop(): void {
    this.stopping = true;
    for (const socket of this.slow.keys()) socket.destroy();
  }

  /** Open slow sockets, and how long the oldest has been open; read at the end of the hostile phase, before stop(). */
  slowSockets(): { open: number; oldestMs: number; closedByServer: number } {
    const now = performance.now();
    const opened = [...this.slow.values()];
    return { open: opened.length, oldestMs: opened.length > 0 ? now - Math.min(...opened) : 0, closedByServer: this.closedByServer };
  }

  /**
   * One slow client, in one of four ways: headers trickled a byte at a time, a body that stops after 4 of
   * 1,000 bytes (authenticated as the noisy tenant, or unauthenticated on /v1/b), or a connection that
   * says nothing. When the server closes it, another takes its place, as an attacker does.
   */
  private openSlow(host: string, port: number, i: number): void {
    if (this.stopping) return;
    const socket = connect({ host, port, localAddress: `127.0.0.${30 + (i % 20)}` });
    this.slow.set(socket, performance.now());
    let trickle: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      const kind = i % 4;
      if (kind === 0) {
        const head = `POST /v1/events HTTP/1.1\r\nhost: ${host}\r\nx-slow: ${'a'.repeat(4_000)}`;
        let at = 0;
        trickle = setInterval(() => socket.write(head[at++ % head.length]), 5_000);
      } else if (kind === 1 || kind === 2) {
        const path = kind === 1 ? '/v1/events' : '/v1/b';
        const auth = kind === 1 ? `authorization: Bearer ${this.noisyToken}\r\n` : '';
        socket.write(`POST ${path} HTTP/1.1\r\nhost: ${host}\r\n${auth}content-type: application/json\r\ncontent-length: 1000\r\n\r\n[{"e`);
      }
    });
    socket.on('error', () => undefined);
    // Read (and drop) what the server answers: a paused socket never sees the server's FIN, so it would
    // look open long after the server closed it.
    socket.resume();
    socket.on('close', () => {
      clearInterval(trickle);
      this.slow.delete(socket);
      if (!this.stopping) {
        this.closedByServer++;
        this.openSlow(host, port, i);
      }
    });
  }

  private async loop(until: number, agent: Agent, next: (n: number) => HostileRequest): Promise<void> {
    for (let n = 0; performance.now() < until; n++) {
      const r = next(n);
      const { status } = await send(`${this.baseUrl}${r.path}`, agent, r);
      this.statuses[status] = (this.statuses[status] ?? 0) + 1;
    }
    agent.destroy();
  }

  /** Rotates through unauthenticated floods, random invalid tokens, the noisy tenant's hostile JSON and bombs. */
  private floodRequest(address: number, lane: number, n: number): HostileRequest {
    const kind = (address + lane + n) % 4;
    if (kind === 0) return { path: '/v1/health', method: 'GET', headers: {} };
    if (kind === 1) return { path: `/v1/predict?userId=u${n}`, method: 'GET', headers: { authorization: `Bearer pat_prod_${Math.random().toString(36).slice(2).padEnd(40, '0')}` } };
    const { headers, body } = this.bodies[n % this.bodies.length];
    if (kind === 2) return { path: n % 2 === 0 ? '/v1/events' : '/v1/batch', method: 'POST', headers: { ...headers, authorization: `Bearer ${this.noisyToken}` }, body };
    return { path: '/v1/b', method: 'POST', headers, body };
  }
}
