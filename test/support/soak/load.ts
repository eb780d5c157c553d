import { performance } from 'node:perf_hooks';
import type { Random } from '@foresight/platform';
import type { SoakCluster } from './cluster';

/** What the load sends: each is a phase's row in the latency table. */
export type RequestKind = 'events batch' | 'event' | 'sdk /v1/b' | 'predict' | 'predict batch' | 'retrain' | 'score' | 'erase';

/** One HTTP attempt: when it was sent, what it was, its status (or network error) and how long it took. */
export interface Sample {
  at: number;
  kind: RequestKind;
  status: string;
  ms: number;
}

export interface LoadOptions {
  /** Ingestion requests per second (batches, single events and SDK batches); predictions at half this rate. */
  rate: number;
  /** Users the load sends events for and asks about (a trained model knows them). */
  users: string[];
  /** Users who also get events, and are erased one by one while the load runs. */
  erasable: string[];
  modelId: string;
  retrainEveryMs: number;
  scoreEveryMs: number;
  eraseEveryMs: number;
}

/** Attempts per request, the API alternating, with a growing pause: a client SDK's retries, the same messageIds each time. */
const ATTEMPTS = 6;
const RETRY_PAUSE_MS = 1_000;
/** An erasure is retried for minutes (the pauses grow by a second each time: about 4.6 min in all), as a person or a script would. */
const ERASE_ATTEMPTS = 24;
/** Requests of one loop in flight at once: a paused database must not pile up unbounded work in the client. */
const MAX_IN_FLIGHT = 48;
const EVENTS_PER_BATCH = 20;
const SDK_EVENTS_PER_BATCH = 10;
const USERS_PER_PREDICT_BATCH = 50;

/** The message of an error body, short enough to group by (ids and numbers blanked). */
function reasonOf(body: string): string {
  try {
    const message = (JSON.parse(body) as { message?: unknown }).message;
    return typeof message === 'string' ? `(${message.replace(/[a-z]+_[a-z0-9]{16}|\d+/g, '…').slice(0, 100)})` : '';
  } catch {
    return '';
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

/**
 * The mixed load of the soak: batched, single and SDK (`/v1/b`) ingestion, GET /v1/predict and batch
 * predictions at fixed rates (open loop, bounded in flight), and retrains, bulk-scoring runs and
 * erasures on a period. It keeps what the checks need: every messageId sent and every one acknowledged
 * (with its user), the users erased, the scoring runs started, and one sample per HTTP attempt.
 */
export class SoakLoad {
  readonly samples: Sample[] = [];
  /** messageId → userId of every event sent, and of every event an answer acknowledged. */
  readonly sent = new Map<string, string>();
  readonly acknowledged = new Map<string, string>();
  /** Users erased (answered 200, or 404 when a retry found them gone already), each with when the DELETE that did it was answered. */
  readonly erased = new Map<string, number>();
  /** Users whose DELETE never answered 200/404 through every retry: not erased, their events still count. */
  readonly refusedErasures: string[] = [];
  /** Requests that named a user after the user's erasure was asked for: the load's own promise that it sends nothing then. */
  sentAfterErasure = 0;
  readonly scoringRuns: string[] = [];
  readonly retrains: number[] = [];
  private readonly live: Set<string>;
  /** Users being erased or erased: the load names them no more. */
  private readonly erasing = new Set<string>();
  /** Per user, requests naming them still in flight (every retry included). */
  private readonly inFlight = new Map<string, number>();
  private readonly erasable: string[];
  private sequence = 0;
  private next = 0;

  constructor(
    private readonly cluster: SoakCluster,
    private readonly random: Random,
    private readonly options: LoadOptions,
  ) {
    this.live = new Set([...options.users, ...options.erasable]);
    this.erasable = [...options.erasable];
  }

  /**
   * Runs every loop until `durationMs` has passed, ingestion and predictions also until `notBefore`
   * settles (the faults, should they outlast the planned time), and waits for their requests to end.
   */
  async run(durationMs: number, notBefore: Promise<unknown> = Promise.resolve()): Promise<void> {
    const until = performance.now() + durationMs;
    let released = false;
    const release = () => (released = true);
    notBefore.then(release, release);
    const going = () => performance.now() < until || !released;
    await Promise.all([
      this.fixedRate(this.options.rate, going, () => this.ingest()),
      this.fixedRate(this.options.rate / 2, going, () => this.predict()),
      this.every(this.options.retrainEveryMs, until, () => this.retrain()),
      this.every(this.options.scoreEveryMs, until, () => this.score()),
      this.every(this.options.eraseEveryMs, until, () => this.erase()),
    ]);
  }

  private async fixedRate(perSecond: number, going: () => boolean, send: () => Promise<void>): Promise<void> {
    const inFlight = new Set<Promise<void>>();
    const started = performance.now();
    for (let i = 0; going(); i++) {
      await sleep(started + (i * 1000) / perSecond - performance.now());
      // Past the bound the request waits for a slot: the client is as stuck as the service.
      while (inFlight.size >= MAX_IN_FLIGHT) await Promise.race(inFlight);
      const request = send().finally(() => inFlight.delete(request));
      inFlight.add(request);
    }
    await Promise.all(inFlight);
  }

  private async every(periodMs: number, until: number, act: () => Promise<void>): Promise<void> {
    for (let at = performance.now() + periodMs; at < until; at += periodMs) {
      await sleep(at - performance.now());
      await act();
    }
  }

  private user(): string {
    return this.distinctUsers(1)[0];
  }

  /** `n` different users drawn from those still live (a partial shuffle). */
  private distinctUsers(n: number): string[] {
    const users = [...this.live];
    const count = Math.min(n, users.length);
    for (let i = 0; i < count; i++) {
      const j = i + Math.floor(this.random() * (users.length - i));
      [users[i], users[j]] = [users[j], users[i]];
    }
    return users.slice(0, count);
  }

  /** Runs `request`, which names `users`, counting it in flight for each of them until its last retry ends. */
  private async naming<T>(users: string[], request: () => Promise<T>): Promise<T> {
    for (const user of users) {
      if (this.erasing.has(user)) this.sentAfterErasure += 1;
      this.inFlight.set(user, (this.inFlight.get(user) ?? 0) + 1);
    }
    try {
      return await request();
    } finally {
      for (const user of users) this.inFlight.set(user, (this.inFlight.get(user) ?? 1) - 1);
    }
  }

  private async ingest(): Promise<void> {
    const draw = this.random();
    const kind: RequestKind = draw < 0.5 ? 'events batch' : draw < 0.7 ? 'event' : 'sdk /v1/b';
    const count = kind === 'events batch' ? EVENTS_PER_BATCH : kind === 'event' ? 1 : SDK_EVENTS_PER_BATCH;
    const events = Array.from({ length: count }, () => {
      const messageId = `soak-${this.sequence++}`;
      const userId = this.user();
      this.sent.set(messageId, userId);
      const checkout = this.random() < 0.05;
      return { messageId, userId, event: checkout ? 'checkout' : 'click', properties: checkout ? {} : { button: 'browse' } };
    });
    const token = this.cluster.token;
    const ok = await this.naming([...new Set(events.map((e) => e.userId))], () => this.attempt(kind, (baseUrl) => {
      if (kind === 'sdk /v1/b') {
        // Segment's mobile SDKs: Basic auth with the write key, text/plain, `{batch}` of typed calls.
        const batch = events.map((e) => ({ type: 'track', ...e, timestamp: new Date().toISOString() }));
        return fetch(`${baseUrl}/v1/b`, {
          method: 'POST',
          headers: { authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}`, 'content-type': 'text/plain' },
          body: JSON.stringify({ batch, sentAt: new Date().toISOString() }),
        });
      }
      return fetch(`${baseUrl}/v1/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(kind === 'event' ? events[0] : events),
      });
    }));
    if (ok) for (const e of events) this.acknowledged.set(e.messageId, e.userId);
  }

  private async predict(): Promise<void> {
    if (this.random() < 0.9) {
      const user = this.user();
      await this.naming([user], () => this.attempt('predict', (baseUrl) => fetch(`${baseUrl}/v1/predict?userId=${encodeURIComponent(user)}`, { headers: this.bearer() }), 1));
      return;
    }
    // CONTRACT.md: 1 to 1,000 ids, each named once (a repeated id is answered 400).
    const userIds = this.distinctUsers(USERS_PER_PREDICT_BATCH);
    await this.naming(userIds, () =>
      this.attempt('predict batch', (baseUrl) => fetch(`${baseUrl}/v1/predict/batch`, { method: 'POST', headers: this.json(), body: JSON.stringify({ userIds }) }), 1),
    );
  }

  private async retrain(): Promise<void> {
    const body = JSON.stringify({ modelId: this.options.modelId });
    // 409 while a run is still training counts as an answer, not a failure.
    if (await this.attempt('retrain', (baseUrl) => fetch(`${baseUrl}/v1/models/retrain`, { method: 'POST', headers: this.json(), body }), ATTEMPTS, [409])) this.retrains.push(Date.now());
  }

  private async score(): Promise<void> {
    let runId: string | undefined;
    await this.attempt('score', async (baseUrl) => {
      const response = await fetch(`${baseUrl}/v1/models/${this.options.modelId}/score`, { method: 'POST', headers: this.bearer() });
      if (response.ok) runId = ((await response.clone().json()) as { id: string }).id;
      return response;
    });
    if (runId !== undefined) this.scoringRuns.push(runId);
  }

  /**
   * Takes a user out of the traffic, waits until every request naming them has ended (its last retry
   * included), then erases them (retried through faults). From then on nothing the load sends names
   * the user, so whatever of theirs is stored at the end is what the erasure missed, not data sent after it.
   */
  private async erase(): Promise<void> {
    const user = this.erasable.shift();
    if (user === undefined) return;
    this.live.delete(user);
    this.erasing.add(user);
    while ((this.inFlight.get(user) ?? 0) > 0) await sleep(200);
    const done = await this.attempt('erase', (baseUrl) => fetch(`${baseUrl}/v1/users?userId=${encodeURIComponent(user)}`, { method: 'DELETE', headers: this.bearer() }), ERASE_ATTEMPTS, [404]);
    if (done) this.erased.set(user, Date.now());
    else this.refusedErasures.push(user);
  }

  /** Sends `send` to the APIs in turn until it answers 2xx (or an `accepted` status); one sample per attempt. */
  private async attempt(kind: RequestKind, send: (baseUrl: string) => Promise<Response>, attempts = ATTEMPTS, accepted: number[] = []): Promise<boolean> {
    const urls = this.cluster.apiUrls;
    let start = this.next++;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const baseUrl = urls[start++ % urls.length];
      // Judged by when it was sent: a request sent while a fault lasted that fails after it ended says nothing of the recovery.
      const sentAt = Date.now();
      const sent = performance.now();
      let status: string;
      try {
        const response = await send(baseUrl);
        const body = await response.text();
        // A 5xx says why (CONTRACT.md's error body), so the per-fault error log tells a pool wait from Redis or PostgreSQL being down.
        status = response.status >= 500 ? `${response.status} ${reasonOf(body)}` : String(response.status);
      } catch (error) {
        status = `network error (${(error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message})`;
      }
      this.samples.push({ at: sentAt, kind, status, ms: performance.now() - sent });
      if (status.startsWith('2') || accepted.includes(Number(status))) return true;
      if (status.startsWith('4') && status !== '429' && status !== '408') return false; // the request is wrong: retrying changes nothing
      if (attempt < attempts) await sleep(RETRY_PAUSE_MS * attempt);
    }
    return false;
  }

  private bearer(): Record<string, string> {
    return { authorization: `Bearer ${this.cluster.token}` };
  }

  private json(): Record<string, string> {
    return { ...this.bearer(), 'content-type': 'application/json' };
  }
}
