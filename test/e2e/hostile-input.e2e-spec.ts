import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { eventually } from '../support/eventually';
import { buildRequest, caseArb, describeCase, type HostileCase, type Surface, SURFACES, type Tokens } from '../support/hostile/cases';
import { acceptedEventViolations, acceptedModelViolations, loggedFaults, shapeViolations } from '../support/hostile/contract';
import { fold } from '../support/hostile/json-text';
import { allowedWrites, changes, type Fingerprint, Ledger } from '../support/hostile/ledger';
import { type OpenApiDocument, type Operation, operationsOf, propertyNames, UNDOCUMENTED_OPERATIONS } from '../support/hostile/openapi';
import { rawRequest } from '../support/hostile/raw-http';
import type { ValueContext } from '../support/hostile/values';
import { request } from '../support/http';
import { cliJson, type RunningProcess, startApi } from '../support/processes';
import { type OrganizationWithToken, TestSuite } from '../support/suite';

/**
 * Issue 15: every operation of the service's own OpenAPI document, driven with hostile strings,
 * numbers, dates, nesting, keys and encodings (fast-check). Every answer must be below 500 and in
 * the error shape; an answer >= 300 must have stored nothing, a 2xx only what its route writes;
 * organization B, never addressed with its own token, must end as it began.
 * Issue 40: also the routes outside the document (the dashboard's and the docs viewer's static files,
 * with escapes from their root and Range and conditional headers), Segment's ways of presenting the
 * write key, compressed bodies whole, broken and padded to the limit, and text that is not Unicode
 * (lone surrogates, bytes that are not UTF-8) in bodies and URLs. Each such surface must get cases.
 *
 * `npm test` runs FUZZ_RUNS cases per operation with the fixed FUZZ_SEED; `npm run fuzz` runs 20 times
 * as many with a random seed it prints. FUZZ_COLLECT=1 keeps going after a failure, to list every
 * distinct one (written to FUZZ_FINDINGS, default $TMPDIR/foresight-hostile-findings.json, either way).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const SEED = Number(process.env.FUZZ_SEED ?? 15_2026);
const COLLECT = process.env.FUZZ_COLLECT === '1';
/** Slower than this is a finding (regex backtracking, unbounded work), not a pass. */
const SLOW_MS = Number(process.env.FUZZ_SLOW_MS ?? 3_000);
const B_MARKER = 'bsecret';
const FINDINGS_FILE = process.env.FUZZ_FINDINGS ?? join(tmpdir(), 'foresight-hostile-findings.json');

/** The seed of one operation's cases: FUZZ_SEED and the operation's key, so a run replays with FUZZ_SEED alone. */
function seedOf(key: string): number {
  let hash = SEED | 0;
  for (let i = 0; i < key.length; i++) hash = (Math.imul(hash, 31) + key.charCodeAt(i)) | 0;
  return hash;
}

interface Finding {
  signature: string;
  operation: string;
  violation: string;
  example: string;
  answer: string;
  count: number;
}

describe('hostile input, generated from the OpenAPI document', () => {
  let suite: TestSuite;
  let api: RunningProcess;
  let ledger: Ledger;
  let operations: Operation[];
  let orgA: OrganizationWithToken;
  let orgB: OrganizationWithToken;
  let tokens: Tokens;
  let ctx: ValueContext;
  let fingerprintB: Fingerprint;
  const findings = new Map<string, Finding>();
  const exercised = new Map<string, number>();
  const spentMs = new Map<string, number>();
  const reached = new Map<Surface, number>();

  const call = <T = Record<string, unknown>>(token: string, method: string, path: string, body?: unknown) =>
    request<T>(`${api.baseUrl}${path}`, { token, method, body });
  const must = async <T,>(promise: Promise<{ status: number; body: T }>): Promise<T> => {
    const response = await promise;
    if (response.status !== 200) throw new Error(`setup call failed with ${response.status}: ${JSON.stringify(response.body)}`);
    return response.body;
  };

  beforeAll(async () => {
    suite = await TestSuite.create('hostile');
    [orgA, orgB] = await Promise.all([suite.createOrganization('hostile-a'), suite.createOrganization('hostile-b')]);
    // The fuzzer sends thousands of requests with one token: a bucket this large never runs dry, so 429 cannot mask answers.
    await cliJson(suite.env, ['org', 'update', orgA.organization.id, '--rate-limit', '10000000', '--burst', '20000000']);
    api = await startApi({ ...suite.env, WORKER_MODE: 'off', LOG_LEVEL: 'warn' });

    const a = orgA.token.secret;
    const b = orgB.token.secret;
    const now = new Date().toISOString();
    const events = (prefix: string, users: string[], marker: string) =>
      users.flatMap((userId, i) => [
        { event: 'checkout_start', userId, sessionId: `${prefix}-session-${i}`, timestamp: now, properties: { plan: marker } },
        { event: 'page_view', userId, anonymousId: `${prefix}-anon-${i}`, properties: { url: `https://${marker}.example/cart` } },
      ]);
    // U+FFFD is what a lone surrogate becomes once stored as UTF-8: a real user that such an id must never reach.
    const usersA = ['a-user-1', 'a-user-2', '\ufffd'];
    const usersB = ['b-user-1'];
    await must(call(a, 'POST', '/v1/events', events('a', usersA, 'a-plan')));
    await must(call(b, 'POST', '/v1/events', events('b', usersB, B_MARKER)));
    const modelsA = await Promise.all(
      ['fuzz_alpha', 'fuzz_beta'].map((name) => must(call<{ id: string }>(a, 'POST', '/v1/models', { name, targetEvent: 'checkout_start' }))),
    );
    const modelB = await must(call<{ id: string }>(b, 'POST', '/v1/models', { name: `${B_MARKER}_model`, targetEvent: `${B_MARKER}_event` }));
    const hook = (token: string, host: string) => must(call<{ id: string }>(token, 'POST', '/v1/webhooks', { url: `https://${host}/hook`, events: ['model.failed'] }));
    const webhooksA = await Promise.all([hook(a, 'a1.example.com'), hook(a, 'a2.example.com')]);
    const webhookB = await hook(b, `${B_MARKER}.example.com`);
    const issue = (token: string, scopes: string[]) => must(call<{ id: string; token: string }>(token, 'POST', '/v1/tokens', { environment: 'dev', scopes }));
    const [ingest, read, revoked, ...sacrificial] = await Promise.all([
      issue(a, ['ingest']),
      issue(a, ['read']),
      issue(a, ['read']),
      issue(a, ['read']),
      issue(a, ['admin']),
    ]);
    await must(call(a, 'DELETE', `/v1/tokens/${revoked.id}`));
    const tokenB = await issue(b, ['read']);
    tokens = { admin: a, ingest: ingest.token, read: read.token, revoked: revoked.token };

    const document = (await (await fetch(`${api.baseUrl}/v1/openapi.json`)).json()) as OpenApiDocument;
    operations = [...operationsOf(document), ...UNDOCUMENTED_OPERATIONS];
    // The files the static routes serve, as their own pages link them (hashed asset names change with every build).
    const linked = async (page: string, root: string) =>
      [...(await (await fetch(`${api.baseUrl}${page}`)).text()).matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1].replace(root, '').replace(/^\.\//, '')).filter((f) => !/^[a-z]+:/.test(f));
    const staticFiles = [...new Set(['index.html', ...(await linked('/dashboard/', '/dashboard/')), ...(await linked('/v1/docs', '/v1/docs/'))])];
    ctx = {
      // Ids that exist, of both organizations; never those of the tokens the suite itself sends (revoking them would end the run).
      knownIds: [...modelsA.map((m) => m.id), modelB.id, ...webhooksA.map((w) => w.id), webhookB.id, ...sacrificial.map((t) => t.id), tokenB.id, revoked.id],
      knownUsers: [...usersA, ...usersB, 'a-session-0', 'b-session-0', 'a-anon-0'],
      dictionary: [
        ...propertyNames(document),
        // Segment's message spec (the document links it) and the behavioral signals the API lifts into columns.
        ...['type', 'event', 'userId', 'anonymousId', 'previousId', 'groupId', 'properties', 'context', 'traits', 'integrations', 'timestamp'],
        ...['originalTimestamp', 'sentAt', 'receivedAt', 'messageId', 'name', 'category', 'batch', 'writeKey', 'sessionId', 'screen', 'url', 'depth', 'dwellMs', 'hesitationMs'],
      ],
      nowIso: now,
      writeKeys: [ingest.token, revoked.token],
      staticFiles,
    };
    ledger = await Ledger.open(suite.env.DATABASE_URL);
    fingerprintB = await ledger.fingerprint(orgB.organization.id, true);
  }, 120_000);

  afterAll(async () => {
    mkdirSync(dirname(FINDINGS_FILE), { recursive: true });
    writeFileSync(FINDINGS_FILE, JSON.stringify({ seed: SEED, runs: RUNS, findings: [...findings.values()] }, null, 2));
    await ledger?.close();
    await api?.stop();
    await suite?.destroy();
  });

  /** Sends one case and returns what it broke, if anything. */
  async function exercise(operation: Operation, c: HostileCase): Promise<string[]> {
    const built = buildRequest(operation, c, tokens);
    for (const surface of built.surfaces) reached.set(surface, (reached.get(surface) ?? 0) + 1);
    const before = await ledger.fingerprint(orgA.organization.id);
    const logMark = api.output().length;
    const started = Date.now();
    const outcome = await rawRequest(api.baseUrl, built.request);
    const elapsed = Date.now() - started;
    const after = await ledger.fingerprint(orgA.organization.id);
    const afterB = await ledger.fingerprint(orgB.organization.id, true);

    const { violations, answer } = shapeViolations(outcome, built.mayGoUnanswered);
    const status = answer?.status ?? 0;
    if (status >= 500) {
      // Name the fault in the violation, so distinct causes on one route stay distinct findings.
      // The log line can trail the answer by a moment; a fault nothing logs is a finding of its own ('nothing logged').
      const logged = await eventually('the fault to be logged', () => {
        const lines = loggedFaults(api.output().slice(logMark));
        return lines.length > 0 ? lines : undefined;
      }, 1_000).catch(() => []);
      const primary = logged.filter((line) => line.startsWith('unexpected error'));
      const cause = (primary.length > 0 ? primary : logged).map((line) => line.replace(/^unexpected error on \S+: /, '').replace(/ \(.*$/, '')).join(' / ') || 'nothing logged';
      const index = violations.findIndex((v) => v.startsWith('status '));
      if (index >= 0) violations[index] = `status ${status}: ${cause.replace(/\d+/g, '#').slice(0, 140)} :: ${logged.join(' / ')}`;
    }
    if (elapsed > SLOW_MS) violations.push(`slower than ${SLOW_MS} ms :: ${elapsed} ms`);

    // Authentication comes first: without a usable token only 401/429, or what the HTTP layer says about a broken request.
    if (answer && operation.authenticated && built.unauthenticated) {
      const allowed = new Set([401, 429]);
      if (built.bodyMalformed) [400, 413, 415].forEach((s) => allowed.add(s));
      if (built.pathOdd) [400, 404, 414, 431].forEach((s) => allowed.add(s));
      if (!allowed.has(status)) violations.push(`token ${c.token}: expected 401 before anything else, got ${status} :: ${answer.text.slice(0, 200)}`);
    }
    if (answer && status < 300 && operation.authenticated) {
      if ((c.token === 'basic' || c.token === 'basic-ingest') && !operation.segmentCompatible) violations.push(`Basic auth accepted (${status}) on a route that is not Segment-compatible`);
      if ((c.token === 'ingest' || c.token === 'basic-ingest') && !operation.ingestion && !/any valid token/i.test(operation.summary)) {
        violations.push(`an ingest-only token got ${status} on a route outside ingestion`);
      }
    }
    // Issue 40 (6): Segment SDKs drop or endlessly retry a refused batch, so only the body as a whole may be refused.
    if (answer && built.segmentBatchWithinLimits && status >= 400 && status !== 429) {
      violations.push(`refused a whole Segment batch (${status}) for what its messages hold: valid messages are stored, invalid ones skipped :: ${answer.text.slice(0, 200)}`);
    }
    // Issue 40 (7): read as UTF-8, a lone surrogate is U+FFFD, and two of them the same id: it is refused where ingestion refuses it.
    if (answer && status >= 200 && status < 300 && built.notUnicode.length > 0) {
      violations.push(`accepted (${status}) text that is not Unicode in ${built.notUnicode.join(', ')} :: ${answer.text.slice(0, 200)}`);
    }
    if (answer && operation.staticFiles && /"name":\s*"foresight"|root:[^:\n]*:0:0:/.test(answer.text)) violations.push(`served a file outside its root (${status}) :: ${answer.text.slice(0, 120)}`);
    if (answer?.text.includes(B_MARKER)) violations.push(`answer to organization A shows organization B's data :: ${answer.text.slice(0, 300)}`);

    // Nothing stored unless answered 2xx, and then only what the route writes.
    const changedB = changes(fingerprintB, afterB);
    if (Object.keys(changedB).length > 0) violations.push(`organization B's data changed :: ${JSON.stringify(changedB)}`);
    const changed = changes(before, after);
    const changedTables = Object.keys(changed);
    if (changedTables.length > 0) {
      if (status < 200 || status >= 300) violations.push(`answered ${status || 'nothing'} but changed ${Object.keys(changed).join(',')} :: ${JSON.stringify(changed)}`);
      else {
        const allowed = allowedWrites(operation.key, operation.method);
        const illegal = allowed === 'any' ? [] : changedTables.filter((t) => !allowed.includes(t));
        if (illegal.length > 0) violations.push(`${status} changed tables the route does not write :: ${JSON.stringify(changed)}`);
        // JSON everywhere, UTF-8. Bytes that are not are stored as U+FFFD: a different value from the one sent.
        if (built.notUtf8 && operation.body) violations.push(`stored a body that is not UTF-8 (${status}) :: changed ${changedTables.join(',')}`);
      }
    }
    if (answer && status >= 200 && status < 300 && operation.ingestion && operation.method === 'POST') {
      const result = answer.json as { status?: unknown; accepted?: unknown; duplicates?: unknown; suppressed?: unknown; rejected?: unknown } | undefined;
      const counts = [result?.accepted, result?.duplicates, result?.suppressed ?? 0, result?.rejected ?? 0];
      if (result?.status !== 'accepted' || !counts.every((n) => Number.isInteger(n) && (n as number) >= 0)) {
        violations.push(`ingestion 2xx is not {"status":"accepted","accepted":n,"duplicates":n} :: ${answer.text.slice(0, 200)}`);
      } else if ((changed.events ?? 0) !== result.accepted) {
        violations.push(`answered accepted=n but the events table changed by another count :: accepted=${String(result.accepted)}, events ${changed.events ?? 0}`);
      } else if (operation.key === 'POST /v1/events' && built.parsedBody !== undefined) {
        const sent = Array.isArray(built.parsedBody) ? built.parsedBody.length : 1;
        const total = (counts as number[]).reduce((x, y) => x + y, 0);
        if (total !== sent) violations.push(`the answer does not account for every event sent :: sent ${sent}, counted ${total}: ${answer.text}`);
        violations.push(...acceptedEventViolations(built.parsedBody, started));
      }
    }
    if (answer && status >= 200 && status < 300 && operation.key === 'POST /v1/models') violations.push(...acceptedModelViolations(built.parsedBody));
    if (api.child.exitCode !== null) violations.push(`the API process exited (${api.child.exitCode})`);

    for (const violation of violations) record(operation, violation, describeCase(operation, c, built), outcome.kind === 'response' ? outcome.response.raw : JSON.stringify(outcome));
    return violations;
  }

  /**
   * A valid PATCH /v1/organization may leave organization A with a limit of one request a minute or
   * pseudonymized ids, which would turn every later case into a 429 or a 404: its settings go back
   * (in SQL: a limited token could not), and every token of A the cases send is seen with them again
   * (the API caches a verified token with its organization's settings for 500 ms).
   */
  async function restoreSettingsOfA(): Promise<void> {
    await suite.sql(
      `UPDATE organizations SET rate_limit_per_minute = 10000000, burst_per_minute = 20000000, hash_user_ids = false, retention_days = 395 WHERE id = $1`,
      [orgA.organization.id],
    );
    for (const token of [tokens.admin, tokens.ingest, tokens.read]) {
      await eventually('the restored settings of A to apply', async () =>
        ((await call(token, 'GET', '/v1/health')).headers.get('ratelimit-limit') === '10000000' ? true : undefined),
      10_000);
    }
  }

  function record(operation: Operation, violation: string, example: string, answer: string): void {
    // One entry per route and kind of violation: ids, numbers and quoted text vary between cases.
    const kind = violation.split(' :: ')[0].replace(/\d+/g, '#').slice(0, 160);
    const signature = `${operation.key} :: ${kind}`;
    const existing = findings.get(signature);
    if (existing) {
      existing.count++;
      // Keep the shortest example: closest to minimal.
      if (example.length < existing.example.length) Object.assign(existing, { example, answer: answer.slice(0, 1500), violation });
    } else findings.set(signature, { signature, operation: operation.key, violation, example, answer: answer.slice(0, 1500), count: 1 });
  }

  it(
    'answers every operation within the API contract and stores nothing it refused',
    async () => {
      const failures: string[] = [];
      for (const operation of operations) {
        const started = Date.now();
        const property = fc.asyncProperty(caseArb(operation, ctx), async (c) => {
          exercised.set(operation.key, (exercised.get(operation.key) ?? 0) + 1);
          const violations = await exercise(operation, c);
          if (operation.key === 'PATCH /v1/organization') await restoreSettingsOfA();
          if (violations.length > 0 && !COLLECT) throw new Error(violations.join('\n'));
        });
        const details = await fc.check(property, {
          // Its own seed per operation, derived from FUZZ_SEED: aliases with the same schema (/v1/track, /v1/t) get different cases.
          seed: seedOf(operation.key),
          numRuns: RUNS,
          // Shrinking replays requests against a live server: bounded, and the best counterexample so far is reported.
          interruptAfterTimeLimit: Number(process.env.FUZZ_OPERATION_MS ?? 60_000),
          markInterruptAsFailure: false,
        });
        spentMs.set(operation.key, Date.now() - started);
        if (details.failed) {
          const example = details.counterexample?.[0];
          const shown = example ? describeCase(operation, example, buildRequest(operation, example, tokens)) : '(no counterexample)';
          const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
          // fast-check's own report, with its raw counterexample folded: the readable one is `shown`.
          const report = (fc.defaultReportMessage(details) ?? '').split('\n').filter((line) => !line.startsWith('Hint')).map((line) => fold(line, 400));
          failures.push(`${operation.key}\n${shown}\n  violated: ${fold(error, 600)}\n${report.join('\n')}`);
        }
      }
      const distinct = [...findings.values()].map((f) => `${f.signature}  (x${f.count})\n${f.example}\n  -> ${f.answer.split('\r\n')[0]}`);
      expect({ failures, distinct }).toEqual({ failures: [], distinct: [] });
    },
    Math.max(110_000, RUNS * 30 * 1_500),
  );

  it('exercised every operation the OpenAPI document lists, and the routes outside it', () => {
    const width = Math.max(...operations.map((o) => o.key.length));
    console.log(`cases per operation (FUZZ_SEED=${SEED}, FUZZ_RUNS=${RUNS}):\n${operations.map((o) => `  ${o.key.padEnd(width)} ${String(exercised.get(o.key) ?? 0).padStart(6)} cases ${String(spentMs.get(o.key) ?? 0).padStart(7)} ms`).join('\n')}`);
    const missing = operations.filter((o) => !exercised.get(o.key)).map((o) => o.key);
    expect(operations.length).toBeGreaterThan(UNDOCUMENTED_OPERATIONS.length);
    expect(missing).toEqual([]);
  });

  it('reached every hostile surface issue 40 names', () => {
    console.log(`cases per hostile surface:\n${SURFACES.map((s) => `  ${s.padEnd(96)} ${String(reached.get(s) ?? 0).padStart(6)}`).join('\n')}`);
    expect(SURFACES.filter((s) => !reached.get(s))).toEqual([]);
  });

  it('left organization B as it was and still serves it', async () => {
    expect(changes(fingerprintB, await ledger.fingerprint(orgB.organization.id, true))).toEqual({});
    const models = await call<Array<{ name: string }>>(orgB.token.secret, 'GET', '/v1/models');
    expect(models.status).toBe(200);
    expect(models.body.map((m) => m.name)).toEqual([`${B_MARKER}_model`]);
  });

  it('logged no unexpected error and no 5xx', () => {
    expect(loggedFaults(api.output())).toEqual([]);
  });
});
