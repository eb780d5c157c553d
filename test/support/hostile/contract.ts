import type { RawOutcome } from './raw-http';

/** Every code and the status it goes with. */
export const ERROR_STATUS: Record<string, number> = {
  invalid_request: 400,
  pii_detected: 400,
  invalid_token: 401,
  insufficient_scope: 403,
  not_found: 404,
  request_timeout: 408,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  range_not_satisfiable: 416,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
};

export interface ParsedAnswer {
  status: number;
  headers: Record<string, string>;
  json?: unknown;
  text: string;
}

/**
 * Violations of the API contract in one answer, whatever was asked: no 5xx, an error body of the contract's
 * shape (429 exactly `{error, retry_after}`), JSON that parses for JSON answers.
 */
export function shapeViolations(outcome: RawOutcome, allowNoAnswer: boolean): { violations: string[]; answer?: ParsedAnswer } {
  if (outcome.kind === 'no-response') {
    return { violations: allowNoAnswer ? [] : [`no HTTP answer :: ${outcome.reason}; received: ${JSON.stringify(outcome.received)}`] };
  }
  const { response } = outcome;
  const text = response.body.toString('utf8');
  const answer: ParsedAnswer = { status: response.status, headers: response.headers, text };
  const violations: string[] = [];
  const isJson = /json/i.test(response.headers['content-type'] ?? '');
  if (isJson && !/x-ndjson/i.test(response.headers['content-type'] ?? '')) {
    try {
      answer.json = text === '' ? undefined : JSON.parse(text);
    } catch {
      violations.push(`${response.status} with a JSON content-type but a body that is not JSON :: ${JSON.stringify(text.slice(0, 300))}`);
    }
  }
  if (response.status >= 500) violations.push(`status ${response.status}`);
  if (response.status < 400) return { violations, answer };

  if (!isJson || answer.json === undefined) {
    violations.push(`${response.status} without a JSON error body :: content-type ${response.headers['content-type'] ?? 'none'}: ${JSON.stringify(text.slice(0, 200))}`);
    return { violations, answer };
  }
  const body = answer.json as Record<string, unknown>;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    violations.push(`${response.status} error body is not an object :: ${text.slice(0, 200)}`);
    return { violations, answer };
  }
  if (response.status === 429) {
    const keys = Object.keys(body).sort().join(',');
    const retry = body.retry_after;
    if (keys !== 'error,retry_after' || body.error !== 'rate_limited' || !Number.isInteger(retry) || (retry as number) < 1) {
      violations.push(`429 body is not exactly {"error":"rate_limited","retry_after":n} :: ${text.slice(0, 200)}`);
    } else if (response.headers['retry-after'] !== String(retry)) {
      violations.push(`429 Retry-After header ${response.headers['retry-after']} differs from retry_after ${String(retry)}`);
    }
    return { violations, answer };
  }
  const extra = Object.keys(body).filter((k) => !['error', 'message', 'details'].includes(k));
  const codeKnown = typeof body.error === 'string' && body.error in ERROR_STATUS && body.error !== 'rate_limited';
  if (extra.length > 0 || !codeKnown) {
    violations.push(`error body not in the contract shape (code ${JSON.stringify(body.error)}, extra fields ${extra.join(',') || 'none'}) :: ${text.slice(0, 300)}`);
  } else if (ERROR_STATUS[body.error as string] !== response.status) {
    violations.push(`error ${String(body.error)} answered with status ${response.status} (contract: ${ERROR_STATUS[body.error as string]})`);
  }
  if (typeof body.message !== 'string' || body.message.length === 0) violations.push(`error body without a message string :: ${text.slice(0, 300)}`);
  if (body.details !== undefined) {
    const ok =
      Array.isArray(body.details) &&
      body.details.every((d: unknown) => d !== null && typeof d === 'object' && typeof (d as { path?: unknown }).path === 'string' && typeof (d as { message?: unknown }).message === 'string');
    if (!ok) violations.push(`details is not an array of {path, message} :: ${JSON.stringify(body.details).slice(0, 300)}`);
  }
  if (response.status === 401 && !/^Bearer/.test(response.headers['www-authenticate'] ?? '')) violations.push('401 without WWW-Authenticate: Bearer');
  if (/\bat [^ ]+\.js:\d+|node_modules|SELECT |INSERT |QueryFailedError/.test(text)) violations.push(`error body leaks internals :: ${text.slice(0, 300)}`);
  return { violations, answer };
}

/** Distinct faults the API process logged: pino lines at level error or fatal (>= 50) or with a 5xx status, and any other line naming an error. */
export function loggedFaults(output: string): string[] {
  const faults = new Map<string, string>();
  for (const line of output.split('\n')) {
    if (line.trim() === '') continue;
    let key = line.slice(0, 160);
    let shown = line.slice(0, 400);
    if (line.startsWith('{')) {
      try {
        const entry = JSON.parse(line) as { level?: number; status?: number; msg?: string; route?: string; err?: { type?: string; message?: string; stack?: string } };
        if ((entry.level ?? 0) < 50 && (entry.status ?? 0) < 500) continue;
        key = `${entry.msg} ${entry.route} ${entry.err?.type} ${entry.err?.message}`;
        const where = entry.err?.stack?.split('\n').find((l) => l.includes('/dist/'))?.trim();
        shown = `${entry.msg} on ${entry.route ?? '?'}: ${entry.err?.type}: ${entry.err?.message?.slice(0, 200)} (${where ?? 'no stack'})`;
      } catch {
        // not pino JSON: judged as text below
      }
    } else if (!/error|exception|fail/i.test(line)) continue;
    faults.set(key, shown);
  }
  return [...faults.values()];
}

const CONTROL = /\p{Cc}/u;
/** A UTF-16 half without its pair: not Unicode text, and stored as U+FFFD, another id's. */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function depthOf(value: unknown): number {
  // Iterative: the values checked may be nested far deeper than the call stack allows.
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    deepest = Math.max(deepest, depth);
    if (node !== null && typeof node === 'object') for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * The events rules a 2xx answer to POST /v1/events (all-or-nothing) cannot have broken:
 * every event it accepted must be one the contract accepts.
 */
export function acceptedEventViolations(body: unknown, receivedAt: number): string[] {
  const events = Array.isArray(body) ? body : [body];
  const violations: string[] = [];
  if (events.length > 1000) violations.push(`accepted a batch of more than 1,000 events :: ${events.length}`);
  events.forEach((event: unknown, i) => {
    if (event === null || typeof event !== 'object') return;
    const e = event as Record<string, unknown>;
    const text = (field: string) => (typeof e[field] === 'string' ? (e[field]) : undefined);
    for (const field of ['event', 'userId']) {
      const value = text(field);
      if (value !== undefined && CONTROL.test(value)) violations.push(`accepted an event whose ${field} holds control characters :: [${i}].${field}=${JSON.stringify(value).slice(0, 80)}`);
    }
    // Ids are stored as UTF-8 text: a lone surrogate cannot be, and two different ids would end as one (U+FFFD).
    for (const field of ['event', 'userId', 'anonymousId', 'sessionId', 'messageId']) {
      const value = text(field);
      if (value !== undefined && LONE_SURROGATE.test(value)) violations.push(`accepted an event whose ${field} is not Unicode text (lone surrogate) :: [${i}].${field}=${JSON.stringify(value).slice(0, 80)}`);
    }
    const timestamp = text('timestamp');
    if (timestamp !== undefined) {
      const at = Date.parse(timestamp);
      if (Number.isNaN(at)) violations.push(`accepted an event whose timestamp JavaScript cannot read :: [${i}].timestamp=${timestamp}`);
      else if (at < 0) violations.push(`accepted an event timestamped before 1970 :: [${i}].timestamp=${timestamp}`);
      else if (at > receivedAt + 24 * 3600 * 1000) violations.push(`accepted an event more than 24 h in the future :: [${i}].timestamp=${timestamp}`);
    }
    for (const field of ['properties', 'context']) {
      if (depthOf(e[field]) > 32) violations.push(`accepted an event nested deeper than 32 levels :: [${i}].${field}`);
    }
  });
  return violations;
}

/** A schedule is a 5-field cron firing at most once a minute; a 6-field (seconds) cron is a 400. */
export function acceptedModelViolations(body: unknown): string[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return [];
  const schedule = (body as { schedule?: unknown }).schedule;
  if (typeof schedule === 'string' && schedule.trim().split(/\s+/).length > 5) {
    return [`accepted a 6-field (per-second) cron schedule :: schedule=${JSON.stringify(schedule).slice(0, 80)}`];
  }
  return [];
}
