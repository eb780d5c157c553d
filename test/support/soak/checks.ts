import { userIdColumns } from '../user-id-columns';
import { type Receiver, verifySignature, type WebhookBody } from '../webhook-receiver';
import type { SoakCluster } from './cluster';
import type { FaultWindow } from './faults';
import type { RequestKind, Sample, SoakLoad } from './load';

/** One item of the issue's list: what was measured (printed as is) and what is wrong with it (empty when it holds). */
export interface Check {
  title: string;
  lines: string[];
  failures: string[];
}

const CHUNK = 20_000;

/** Every acknowledged event stored exactly once, and no event (acknowledged or not) stored twice; erased users' events excepted. */
export async function eventsCheck(cluster: SoakCluster, load: SoakLoad): Promise<Check> {
  const erased = load.erased;
  const ids = [...load.sent.keys()].filter((id) => !erased.has(load.sent.get(id) as string));
  const stored = new Map<string, number>();
  for (let i = 0; i < ids.length; i += CHUNK) {
    const rows = await cluster.sql<{ id: string; n: number }>(
      'SELECT message_id AS id, count(*)::int AS n FROM events WHERE organization_id = $1 AND message_id = ANY($2) GROUP BY message_id',
      [cluster.organizationId, ids.slice(i, i + CHUNK)],
    );
    for (const row of rows) stored.set(row.id, row.n);
  }
  const acknowledged = ids.filter((id) => load.acknowledged.has(id));
  const lost = acknowledged.filter((id) => !stored.has(id));
  const duplicated = ids.filter((id) => (stored.get(id) ?? 0) > 1);
  const unacknowledged = ids.length - acknowledged.length;
  const unacknowledgedStored = ids.filter((id) => !load.acknowledged.has(id) && stored.has(id)).length;
  return {
    title: 'events: acknowledged stored exactly once',
    lines: [
      `events sent ${ids.length} (of users not erased), acknowledged ${acknowledged.length}, stored ${stored.size}`,
      `acknowledged and lost: ${lost.length}; stored more than once: ${duplicated.length}`,
      `never acknowledged: ${unacknowledged} (stored anyway, once: ${unacknowledgedStored})`,
    ],
    failures: [
      ...(lost.length > 0 ? [`${lost.length} acknowledged events are not stored (e.g. ${lost.slice(0, 5).join(', ')})`] : []),
      ...(duplicated.length > 0 ? [`${duplicated.length} events are stored more than once (e.g. ${duplicated.slice(0, 5).join(', ')})`] : []),
    ],
  };
}

/** Every erased user gone from every PostgreSQL column holding a user id, and from every Redis key and value. */
export async function erasureCheck(cluster: SoakCluster, load: SoakLoad): Promise<Check> {
  const users = [...load.erased];
  const failures: string[] = [];
  if (users.length > 0) {
    for (const { table, column } of await userIdColumns(cluster)) {
      const rows = await cluster.sql<{ user: string; n: number }>(`SELECT ${column} AS user, count(*)::int AS n FROM ${table} WHERE ${column} = ANY($1) GROUP BY 1`, [users]);
      for (const row of rows) failures.push(`${table}.${column} still holds ${row.n} rows of erased ${row.user}`);
    }
    failures.push(...(await redisMentions(cluster, users)));
  }
  return {
    title: 'erasures: gone from every store',
    lines: [
      `users erased: ${users.length}${load.unconfirmedErasures.length > 0 ? ` (${load.unconfirmedErasures.length} whose DELETE never answered 200/404)` : ''}`,
      `PostgreSQL columns and Redis keys/values still naming one: ${failures.length}`,
    ],
    failures,
  };
}

async function redisMentions(cluster: SoakCluster, users: string[]): Promise<string[]> {
  const redis = cluster.redis.client();
  const pattern = new RegExp(`(${users.join('|')})(?![0-9])`);
  const found: string[] = [];
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
      cursor = next;
      for (const key of keys) {
        const type = await redis.type(key);
        const text =
          type === 'string' ? await redis.get(key)
          : type === 'hash' ? JSON.stringify(await redis.hgetall(key))
          : type === 'list' ? JSON.stringify(await redis.lrange(key, 0, -1))
          : type === 'set' ? JSON.stringify(await redis.smembers(key))
          : type === 'zset' ? JSON.stringify(await redis.zrange(key, 0, -1))
          : '';
        const match = pattern.exec(`${key} ${text ?? ''}`);
        if (match) found.push(`Redis ${type} ${key} still names erased ${match[1]}`);
      }
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return found;
}

/** What the receiver answered to each request, in order (the 20% failures are drawn when a request arrives). */
export type ReceiverAnswers = number[];

/** Every webhook event the service recorded reached the receiver with a 2xx at least once, signed, and never twice with a 2xx. */
export async function webhooksCheck(cluster: SoakCluster, receiver: Receiver, answers: ReceiverAnswers, secret: string): Promise<Check> {
  const deliveries = await cluster.sql<{ eventId: string; type: string; status: string; attempts: number }>(
    'SELECT event_id AS "eventId", event_type AS type, status, attempts FROM webhook_deliveries WHERE organization_id = $1',
    [cluster.organizationId],
  );
  const bodies: WebhookBody[] = receiver.bodies();
  const succeeded = new Map<string, number>();
  let unsigned = 0;
  for (const [i, request] of receiver.requests.entries()) {
    if (!verifySignature(secret, request)) unsigned += 1;
    if (answers[i] >= 200 && answers[i] < 300) succeeded.set(bodies[i].id, (succeeded.get(bodies[i].id) ?? 0) + 1);
  }
  const undelivered = deliveries.filter((d) => !succeeded.has(d.eventId));
  const twice = [...succeeded].filter(([, n]) => n > 1);
  const byType = histogram(deliveries.map((d) => d.type));
  const byStatus = histogram(deliveries.map((d) => d.status));
  return {
    title: 'webhooks: at least once, signed, never twice with a 2xx',
    lines: [
      `webhook events recorded: ${deliveries.length} (${byType}); delivery states: ${byStatus}`,
      `requests received: ${receiver.requests.length}, answered 2xx: ${answers.filter((a) => a < 300).length}, answered 500: ${answers.filter((a) => a >= 500).length}`,
      `events never answered 2xx: ${undelivered.length}; answered 2xx more than once: ${twice.length}; unsigned or badly signed requests: ${unsigned}`,
    ],
    failures: [
      ...(deliveries.length === 0 ? ['no webhook event was recorded: the load made none to check'] : []),
      ...(undelivered.length > 0 ? [`${undelivered.length} webhook events never reached the receiver with a 2xx (e.g. ${undelivered.slice(0, 3).map((d) => `${d.eventId} ${d.status}`).join(', ')})`] : []),
      ...(twice.length > 0 ? [`${twice.length} webhook events were answered 2xx more than once (e.g. ${twice.slice(0, 3).map(([id, n]) => `${id} x${n}`).join(', ')})`] : []),
      ...(unsigned > 0 ? [`${unsigned} webhook requests were not signed correctly`] : []),
    ],
  };
}

/** Every scoring run completed, each with every (user, model) it scored logged once. */
export async function scoringCheck(cluster: SoakCluster): Promise<Check> {
  const runs = await cluster.sql<{ id: string; trigger: string; state: string; scored: number; total: number | null; rows: number; pairs: number }>(
    `SELECT r.id, r.trigger, r.state, r.scored, r.total,
            (SELECT count(*)::int FROM predictions p WHERE p.organization_id = r.organization_id AND p.scoring_run = r.id) AS rows,
            (SELECT count(DISTINCT (p.user_id, p.model_id))::int FROM predictions p WHERE p.organization_id = r.organization_id AND p.scoring_run = r.id) AS pairs
       FROM scoring_runs r WHERE r.organization_id = $1 ORDER BY r.created_at`,
    [cluster.organizationId],
  );
  const unfinished = runs.filter((r) => r.state !== 'completed');
  const repeated = runs.filter((r) => r.rows !== r.pairs);
  return {
    title: 'scoring runs: complete, each user once',
    lines: [
      `scoring runs: ${runs.length} (${histogram(runs.map((r) => r.trigger))}); states: ${histogram(runs.map((r) => r.state))}`,
      `users scored per run: ${runs.map((r) => r.scored).join(', ') || 'none'}; runs logging a user twice: ${repeated.length}`,
    ],
    failures: [
      ...unfinished.map((r) => `scoring run ${r.id} (${r.trigger}) ended ${r.state}`),
      ...repeated.map((r) => `scoring run ${r.id} logged ${r.rows} predictions for ${r.pairs} (user, model) pairs`),
    ],
  };
}

/** Processes that exited without being killed by a fault (each was restarted by the supervisor). */
export function exitsCheck(cluster: SoakCluster): Check {
  const exits = cluster.processes.flatMap((p) => p.unplannedExits);
  return {
    title: 'processes: no exit but the planned kills',
    lines: [`unplanned exits: ${exits.length}`, ...exits.map((e) => `  ${e.split('\n')[0]}`)],
    failures: exits.map((e) => e.slice(0, 2000)),
  };
}

const isError = (s: Sample) => !s.status.startsWith('2') && s.status !== '409' && !(s.kind === 'erase' && s.status === '404');

/**
 * Per fault: the error rate while it lasted and after it, and the recovery time: from the fault's end
 * until the last failed request before the next fault. `boundMs` is judged only when given (the soak
 * judges it; the suite, which asserts no timing, does not).
 */
export function faultsCheck(samples: Sample[], windows: FaultWindow[], boundMs?: number): Check {
  const lines = [`${'fault'.padEnd(32)}${'lasted s'.padStart(9)}${'during: req'.padStart(12)}${'errors'.padStart(9)}${'after: req'.padStart(12)}${'errors'.padStart(9)}${'recovered in s'.padStart(16)}`];
  const failures: string[] = [];
  for (const w of windows) {
    const during = samples.filter((s) => s.at >= w.start && s.at < w.end);
    const after = samples.filter((s) => s.at >= w.end && s.at < w.until);
    const lastFailure = Math.max(w.end, ...after.filter(isError).map((s) => s.at));
    const recoveryMs = lastFailure - w.end;
    const judged = w.until - w.end >= (boundMs ?? 0) + 10_000;
    const rate = (group: Sample[]) => `${((group.filter(isError).length / Math.max(1, group.length)) * 100).toFixed(1)}%`;
    lines.push(
      `${w.kind.padEnd(32)}${((w.end - w.start) / 1000).toFixed(1).padStart(9)}${String(during.length).padStart(12)}${rate(during).padStart(9)}` +
        `${String(after.length).padStart(12)}${rate(after).padStart(9)}${(recoveryMs / 1000).toFixed(1).padStart(16)}${judged ? '' : '  (not judged: the next fault came too soon)'}`,
    );
    if (boundMs !== undefined && judged && recoveryMs > boundMs) failures.push(`${w.kind}: errors went on ${(recoveryMs / 1000).toFixed(1)} s after the fault, past the bound of ${boundMs / 1000} s`);
    const errors = histogram([...during, ...after].filter(isError).map((s) => `${s.kind} ${s.status}`));
    if (errors) lines.push(`  errors: ${errors}`);
  }
  if (boundMs !== undefined) lines.push(`recovery bound: every error over within ${boundMs / 1000} s of the fault's end, without a manual step`);
  return { title: 'faults: error rates and recovery', lines, failures };
}

/** p50 and p99 per phase: "steady" (no fault and no recovery under way), and each fault from its start to the next one. */
export function latencyCheck(samples: Sample[], windows: FaultWindow[], loadStart: number): Check {
  const phaseOf = (s: Sample) => windows.find((w) => s.at >= w.start && s.at < w.until)?.kind ?? (s.at < (windows[0]?.start ?? Infinity) ? 'before faults' : 'after faults');
  const phases = new Map<string, Sample[]>();
  for (const s of samples) {
    if (s.at < loadStart) continue;
    const name = phaseOf(s);
    phases.set(name, [...(phases.get(name) ?? []), s]);
  }
  const lines = [`${'phase'.padEnd(32)}${'kind'.padEnd(15)}${'requests'.padStart(9)}${'errors'.padStart(8)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}`];
  const kinds: RequestKind[] = ['events batch', 'event', 'sdk /v1/b', 'predict', 'predict batch'];
  for (const [name, group] of phases) {
    for (const kind of kinds) {
      const ofKind = group.filter((s) => s.kind === kind);
      if (ofKind.length === 0) continue;
      const ms = ofKind.filter((s) => !s.status.startsWith('network')).map((s) => s.ms).sort((a, b) => a - b);
      const at = (q: number) => (ms.length === 0 ? NaN : ms[Math.min(ms.length - 1, Math.floor(ms.length * q))]);
      lines.push(`${name.padEnd(32)}${kind.padEnd(15)}${String(ofKind.length).padStart(9)}${String(ofKind.filter(isError).length).padStart(8)}${at(0.5).toFixed(1).padStart(9)}${at(0.99).toFixed(1).padStart(9)}`);
    }
  }
  return { title: 'latency per phase (context, not judged)', lines, failures: [] };
}

export function histogram(values: string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([v, n]) => `${v} x${n}`).join(', ');
}

export function printChecks(checks: Check[]): string[] {
  const failures: string[] = [];
  for (const check of checks) {
    console.log(`\n${check.failures.length === 0 ? 'PASS' : 'FAIL'}  ${check.title}`);
    for (const line of check.lines) console.log(`  ${line}`);
    for (const failure of check.failures.slice(0, 20)) console.log(`  ! ${failure.split('\n')[0]}`);
    failures.push(...check.failures.map((f) => `${check.title}: ${f}`));
  }
  return failures;
}
