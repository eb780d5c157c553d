import { userIdColumns } from '../user-id-columns';
import { type Receiver, UNRECORDED_SUCCESS_MS } from '../webhook-receiver';
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

/** Columns that say when a row was stored, for the diagnosis of a row an erasure left (first found wins). */
const STORED_AT_COLUMNS = ['received_at', 'predicted_at', 'created_at', 'updated_at'];

/**
 * Every erased user gone from every PostgreSQL column holding a user id, and from every Redis key and
 * value. The load names a user no more once their erasure is asked for, and asks only when every
 * request naming them has ended (retries included): a row left is one the erasure (and its sweep)
 * missed, not data sent after it. Each row left says when it was stored relative to the erasure's answer.
 */
export async function erasureCheck(cluster: SoakCluster, load: SoakLoad): Promise<Check> {
  const users = [...load.erased.keys()];
  const failures: string[] = [];
  if (load.sentAfterErasure > 0) failures.push(`the load named an erased user in ${load.sentAfterErasure} requests after asking for the erasure`);
  for (const user of load.refusedErasures) failures.push(`the erasure of ${user} was never answered 200 (nor 404) through every retry`);
  if (users.length > 0) {
    const storedAt = await cluster.sql<{ table: string; column: string }>(
      `SELECT table_name AS "table", column_name AS "column" FROM information_schema.columns WHERE table_schema = 'public' AND column_name = ANY($1)`,
      [STORED_AT_COLUMNS],
    );
    for (const { table, column } of await userIdColumns(cluster)) {
      const at = STORED_AT_COLUMNS.find((c) => storedAt.some((s) => s.table === table && s.column === c));
      const rows = await cluster.sql<{ user: string; n: number; newest: Date | null }>(
        `SELECT ${column} AS user, count(*)::int AS n, ${at === undefined ? 'NULL' : `max(${at})`} AS newest FROM ${table} WHERE ${column} = ANY($1) GROUP BY 1`,
        [users],
      );
      for (const row of rows) {
        const answered = load.erased.get(row.user) as number;
        const when = row.newest === null ? '' : ` (newest ${at} ${((row.newest.getTime() - answered) / 1000).toFixed(1)} s after the erasure was answered)`;
        failures.push(`${table}.${column} still holds ${row.n} rows of erased ${row.user}${when}`);
      }
    }
    failures.push(...(await redisMentions(cluster, users)));
  }
  const records = await cluster.sql<{ status: string }>('SELECT status FROM erasures WHERE organization_id = $1', [cluster.organizationId]);
  return {
    title: 'erasures: gone from every store',
    lines: [
      `users erased: ${users.length}; erasures refused through every retry: ${load.refusedErasures.length}; erasure records: ${histogram(records.map((r) => r.status)) || 'none'}`,
      `requests naming an erased user after its erasure was asked: ${load.sentAfterErasure}`,
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

/**
 * Every webhook event the service recorded reached the receiver with a 2xx at least once, signed, and
 * never twice with a 2xx but where a worker was killed right after the first (`workerKills`: when, in
 * epoch ms; see UNRECORDED_SUCCESS_MS). `signed`: whether each request's signature held when it arrived.
 */
export async function webhooksCheck(cluster: SoakCluster, receiver: Receiver, signed: readonly boolean[], workerKills: readonly number[]): Promise<Check> {
  const deliveries = await cluster.sql<{ eventId: string; type: string; status: string; attempts: number }>(
    'SELECT event_id AS "eventId", event_type AS type, status, attempts FROM webhook_deliveries WHERE organization_id = $1',
    [cluster.organizationId],
  );
  const succeeded = receiver.successes();
  const unsigned = signed.filter((held) => !held).length;
  const undelivered = deliveries.filter((d) => !succeeded.has(d.eventId));
  const twice = [...succeeded].filter(([, times]) => times.length > 1);
  const unexplained = receiver.unexplainedRepeats(workerKills);
  const byType = histogram(deliveries.map((d) => d.type));
  const byStatus = histogram(deliveries.map((d) => d.status));
  const answered = (from: number, to: number) => receiver.requests.filter((r) => r.status !== null && r.status >= from && r.status < to).length;
  return {
    title: 'webhooks: at least once, signed, never twice with a 2xx unless a worker was killed right after it',
    lines: [
      `webhook events recorded: ${deliveries.length} (${byType}); delivery states: ${byStatus}`,
      `requests received: ${receiver.requests.length}, answered 2xx: ${answered(200, 300)}, answered 5xx: ${answered(500, 600)}`,
      `events never answered 2xx: ${undelivered.length}; answered 2xx more than once: ${twice.length} (${twice.length - unexplained.length} of them sent again after a worker was killed within ${UNRECORDED_SUCCESS_MS / 1000} s of the first 2xx); unsigned or badly signed on arrival: ${unsigned}`,
    ],
    failures: [
      ...(deliveries.length === 0 ? ['no webhook event was recorded: the load made none to check'] : []),
      ...(undelivered.length > 0 ? [`${undelivered.length} webhook events never reached the receiver with a 2xx (e.g. ${undelivered.slice(0, 3).map((d) => `${d.eventId} ${d.status}`).join(', ')})`] : []),
      ...(unexplained.length > 0 ? [`${unexplained.length} webhook events were answered 2xx more than once with no worker killed right after the first (e.g. ${unexplained.slice(0, 3).join(', ')})`] : []),
      ...(unsigned > 0 ? [`${unsigned} webhook requests were not signed correctly`] : []),
    ],
  };
}

/**
 * Every scoring run completed, each with every (user, model) it scored logged once. Every run the
 * service recorded counts, whether or not its answer reached the load (a 202 lost with a killed API
 * still leaves a run that GET /v1/scoring-runs shows): each unfinished one says which it was.
 */
export async function scoringCheck(cluster: SoakCluster, load: SoakLoad): Promise<Check> {
  const runs = await cluster.sql<{ id: string; trigger: string; state: string; createdAt: Date; scored: number; total: number | null; rows: number; pairs: number }>(
    `SELECT r.id, r.trigger, r.state, r.created_at AS "createdAt", r.scored, r.total,
            (SELECT count(*)::int FROM predictions p WHERE p.organization_id = r.organization_id AND p.scoring_run = r.id) AS rows,
            (SELECT count(DISTINCT (p.user_id, p.model_id))::int FROM predictions p WHERE p.organization_id = r.organization_id AND p.scoring_run = r.id) AS pairs
       FROM scoring_runs r WHERE r.organization_id = $1 ORDER BY r.created_at`,
    [cluster.organizationId],
  );
  const unfinished = runs.filter((r) => r.state !== 'completed');
  const models = await cluster.sql<{ status: string }>('SELECT status FROM models WHERE organization_id = $1', [cluster.organizationId]);
  const retrains = load.samples.filter((s) => s.kind === 'retrain');
  const repeated = runs.filter((r) => r.rows !== r.pairs);
  return {
    title: 'scoring runs: complete, each user once',
    lines: [
      `scoring runs: ${runs.length} (${histogram(runs.map((r) => r.trigger))}); states: ${histogram(runs.map((r) => r.state))}`,
      `users scored/to score per run: ${runs.map((r) => `${r.scored}/${r.total ?? '?'}`).join(', ') || 'none'}; runs logging a user twice: ${repeated.length}`,
      `retrain requests answered: ${histogram(retrains.map((s) => s.status)) || 'none'}; model status at the end: ${histogram(models.map((m) => m.status))}`,
    ],
    failures: [
      ...unfinished.map((r) => `scoring run ${r.id} (${r.trigger}${r.trigger === 'manual' ? `, ${load.scoringRuns.includes(r.id) ? 'acknowledged to the load' : 'never acknowledged to the load'}` : ''}, recorded ${r.createdAt.toISOString()}) ended ${r.state}`),
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

/** What the processes logged at error level, grouped by process and message: the story behind a 500 or a failed job. */
export function loggedErrorsCheck(cluster: SoakCluster): Check {
  const lines: string[] = [];
  for (const process of cluster.processes) {
    const summaries = process.loggedErrors().map((line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; err?: { type?: string; message?: string } };
        return `${entry.msg ?? ''}${entry.err ? `: ${entry.err.type ?? ''} ${entry.err.message ?? ''}` : ''}`.replace(/\s+/g, ' ').slice(0, 200);
      } catch {
        return line.slice(0, 200);
      }
    });
    if (summaries.length > 0) lines.push(`${process.name}: ${summaries.length}`, ...counted(summaries).map((h) => `  ${h}`));
  }
  return { title: 'logged errors (context, not judged)', lines: lines.length > 0 ? lines : ['none'], failures: [] };
}

const LAST_ERRORS_SHOWN = 6;

const isError = (s: Sample) => !s.status.startsWith('2') && s.status !== '409' && !(s.kind === 'erase' && s.status === '404');

/**
 * Per fault: the error rate while it lasted and after it, and the recovery time: from the fault's end
 * until the last failed request before the next fault (a request still in flight when the next fault
 * began counts for that one: it met it). `boundMs` is judged only when given (the soak
 * judges it; the suite, which asserts no timing, does not, nor does a run too short to leave the bound
 * between faults): then on every fault, each followed by load for longer than the bound (the schedule
 * leaves that much quiet after each; a fault the load did not outlast by that much fails, rather than
 * passing unseen).
 */
export function faultsCheck(samples: Sample[], windows: FaultWindow[], loadEnd: number, boundMs?: number): Check {
  const lines = [`${'fault'.padEnd(32)}${'lasted s'.padStart(9)}${'during: req'.padStart(12)}${'errors'.padStart(9)}${'after: req'.padStart(12)}${'errors'.padStart(9)}${'recovered in s'.padStart(16)}`];
  const failures: string[] = [];
  for (const [i, w] of windows.entries()) {
    // A request still in flight when a fault began (sent just before it, answered during it) was met by that fault, not by the recovery from the one before.
    const metBy = (s: Sample, fault: FaultWindow | undefined) => fault !== undefined && s.at < fault.start && s.at + s.ms > fault.start;
    const during = samples.filter((s) => (s.at >= w.start && s.at < w.end) || metBy(s, w));
    const after = samples.filter((s) => s.at >= w.end && s.at < w.until && !metBy(s, windows[i + 1]));
    const lastFailure = Math.max(w.end, ...after.filter(isError).map((s) => s.at));
    const recoveryMs = lastFailure - w.end;
    const judged = Math.min(w.until, loadEnd) - w.end > (boundMs ?? 0);
    const rate = (group: Sample[]) => `${((group.filter(isError).length / Math.max(1, group.length)) * 100).toFixed(1)}%`;
    lines.push(
      `${w.kind.padEnd(32)}${((w.end - w.start) / 1000).toFixed(1).padStart(9)}${String(during.length).padStart(12)}${rate(during).padStart(9)}` +
        `${String(after.length).padStart(12)}${rate(after).padStart(9)}${(recoveryMs / 1000).toFixed(1).padStart(16)}${judged ? '' : '  (not judged: the load ended or the next fault came within the bound)'}`,
    );
    if (boundMs !== undefined && !judged) failures.push(`${w.kind}: the load did not go on for the recovery bound after it, so its recovery was not seen`);
    if (boundMs !== undefined && judged && recoveryMs > boundMs) failures.push(`${w.kind}: errors went on ${(recoveryMs / 1000).toFixed(1)} s after the fault, past the bound of ${boundMs / 1000} s`);
    const errors = histogram([...during, ...after].filter(isError).map((s) => `${s.kind} ${s.status}`));
    if (errors) lines.push(`  errors: ${errors}`);
    // What the recovery time is made of: the last errors sent after the fault ended, each with when it was sent and how long it took.
    const lastErrors = after.filter(isError).slice(-LAST_ERRORS_SHOWN);
    if (lastErrors.length > 0) lines.push(`  last errors after it: ${lastErrors.map((s) => `${s.kind} ${s.status} sent +${((s.at - w.end) / 1000).toFixed(1)} s (${(s.ms / 1000).toFixed(1)} s)`).join(', ')}`);
  }
  if (boundMs !== undefined) lines.push(`recovery bound: every error over within ${boundMs / 1000} s of the fault's end, without a manual step`);
  return { title: 'faults: error rates and recovery', lines, failures };
}

/** p50 and p99 per phase: before the first fault, each fault from its start to the next one, after the last. */
export function latencyCheck(samples: Sample[], windows: FaultWindow[], loadStart: number): Check {
  const names = windows.map((w, i) => `${i + 1}. ${w.kind}`);
  const phaseOf = (s: Sample) => {
    const i = windows.findIndex((w) => s.at >= w.start && s.at < w.until);
    return i >= 0 ? names[i] : s.at < (windows[0]?.start ?? Infinity) ? 'before faults' : 'after faults';
  };
  // In time order: before the first fault, each fault until the next, after the last (and the odd sample in the ms between two).
  const phases = new Map<string, Sample[]>(['before faults', ...names, 'after faults'].map((name) => [name, []]));
  for (const s of samples) if (s.at >= loadStart) phases.get(phaseOf(s))?.push(s);
  const lines = [`${'phase'.padEnd(35)}${'kind'.padEnd(15)}${'requests'.padStart(9)}${'errors'.padStart(8)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}`];
  const kinds: RequestKind[] = ['events batch', 'event', 'sdk /v1/b', 'predict', 'predict batch'];
  for (const [name, group] of phases) {
    for (const kind of kinds) {
      const ofKind = group.filter((s) => s.kind === kind);
      if (ofKind.length === 0) continue;
      const ms = ofKind.filter((s) => !s.status.startsWith('network')).map((s) => s.ms).sort((a, b) => a - b);
      const at = (q: number) => (ms.length === 0 ? NaN : ms[Math.min(ms.length - 1, Math.floor(ms.length * q))]);
      lines.push(`${name.padEnd(35)}${kind.padEnd(15)}${String(ofKind.length).padStart(9)}${String(ofKind.filter(isError).length).padStart(8)}${at(0.5).toFixed(1).padStart(9)}${at(0.99).toFixed(1).padStart(9)}`);
    }
  }
  return { title: 'latency per phase (context, not judged)', lines, failures: [] };
}

export function histogram(values: string[]): string {
  return counted(values).join(', ');
}

/** Each distinct value with its count (`value xN`), in alphabetical order. */
function counted(values: string[]): string[] {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([v, n]) => `${v} x${n}`);
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
