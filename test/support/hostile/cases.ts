import { createHmac } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe as describeJson, fold, type JsonText, raw, toBytes } from './json-text';
import type { Operation } from './openapi';
import type { RawRequest } from './raw-http';
import { amplifiedArb, fieldArb, hostileJson, mutatedArb, type UrlValue, urlValueArb, type ValueContext, writeUrlValue } from './values';

/** Who the request claims to be. `admin` (organization A, every scope) is most cases, so requests reach validation and the database. */
export type TokenKind = 'admin' | 'ingest' | 'read' | 'none' | 'garbage' | 'revoked' | 'basic' | 'malformed-header';

export type Transport =
  | { kind: 'normal' }
  | { kind: 'content-type'; value: string }
  | { kind: 'no-content-type' }
  | { kind: 'content-encoding'; value: string; compress: boolean }
  | { kind: 'gzip-bomb' }
  | { kind: 'content-length'; mode: 'short' | 'long' | 'garbage' | 'double' | 'negative' }
  | { kind: 'chunked' }
  | { kind: 'utf16' }
  | { kind: 'bom' };

export interface HostileCase {
  token: TokenKind;
  signature: 'none' | 'garbage' | 'valid';
  accept?: string;
  path: Record<string, UrlValue>;
  query: Array<[string, UrlValue]>;
  body?: JsonText;
  transport: Transport;
}

export interface Tokens {
  admin: string;
  ingest: string;
  read: string;
  revoked: string;
}

/** Text that is not JSON, or JSON a careless parser mishandles. */
const BROKEN_JSON: string[] = [
  '',
  '{',
  '{"a":1',
  '[1,]',
  "{'a':1}",
  '{"a":1}{"b":2}',
  'nul',
  '\ufeff{}',
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  '1e309',
  '"a string"',
  'null',
  '[]',
  '0',
  '{"__proto__":{"x":1}}',
  '{"constructor":{"prototype":{"x":1}}}',
  ' '.repeat(2_000_000),
];

const CONTENT_TYPES = [
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'application/json;;;',
  'application/jsonx',
  'application/vnd.api+json',
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  '*/*',
  '',
];

const transportArb: fc.Arbitrary<Transport> = fc.oneof(
  { weight: 30, arbitrary: fc.constant<Transport>({ kind: 'normal' }) },
  { weight: 3, arbitrary: fc.constantFrom(...CONTENT_TYPES).map((value): Transport => ({ kind: 'content-type', value })) },
  { weight: 1, arbitrary: fc.constant<Transport>({ kind: 'no-content-type' }) },
  {
    weight: 2,
    arbitrary: fc
      .record({ value: fc.constantFrom('gzip', 'deflate', 'br', 'gzip, gzip', 'identity', 'x-unknown'), compress: fc.boolean() })
      .map((v): Transport => ({ kind: 'content-encoding', ...v })),
  },
  { weight: 1, arbitrary: fc.constant<Transport>({ kind: 'gzip-bomb' }) },
  { weight: 2, arbitrary: fc.constantFrom('short', 'long', 'garbage', 'double', 'negative').map((mode): Transport => ({ kind: 'content-length', mode: mode as 'short' })) },
  { weight: 1, arbitrary: fc.constant<Transport>({ kind: 'chunked' }) },
  { weight: 1, arbitrary: fc.constantFrom<Transport>({ kind: 'utf16' }, { kind: 'bom' }) },
);

const tokenArb: fc.Arbitrary<TokenKind> = fc.oneof(
  { weight: 24, arbitrary: fc.constant<TokenKind>('admin') },
  { weight: 2, arbitrary: fc.constantFrom<TokenKind>('ingest', 'read') },
  { weight: 3, arbitrary: fc.constantFrom<TokenKind>('none', 'garbage', 'revoked', 'basic', 'malformed-header') },
);

const EXTRA_QUERY_KEYS = ['extra', '__proto__', 'constructor', 'userId[]', 'a[b]', '', '%00', 'limit', 'since', 'userId'];

export function caseArb(operation: Operation, ctx: ValueContext): fc.Arbitrary<HostileCase> {
  const path = fc.record(Object.fromEntries(operation.pathParams.map((p) => [p.name, urlValueArb(p.name, p.schema, ctx)])));
  const declared = operation.queryParams.map((p) =>
    fc.option(urlValueArb(p.name, p.schema, ctx).map((v): [string, UrlValue] => [p.name, v]), { nil: undefined, freq: p.required ? 12 : 2 }),
  );
  const extra = fc.option(
    fc.tuple(fc.constantFrom(...EXTRA_QUERY_KEYS, ...operation.queryParams.map((p) => p.name)), urlValueArb('extra', {}, ctx)),
    { nil: undefined, freq: 5 },
  );
  const query = fc.tuple(fc.tuple(...declared), extra).map(([entries, more]) => [
    ...entries.filter((e): e is [string, UrlValue] => e !== undefined),
    ...(more ? [more] : []),
  ]);
  const amplified = operation.body ? amplifiedArb(operation.body, ctx) : undefined;
  const body: fc.Arbitrary<JsonText | undefined> = operation.body
    ? fc.oneof(
        { weight: 6, arbitrary: mutatedArb(operation.body, ctx) },
        ...(amplified ? [{ weight: 1, arbitrary: amplified }] : []),
        { weight: 4, arbitrary: fieldArb(operation.body, ctx, 'body') },
        { weight: 1, arbitrary: fc.constantFrom(...BROKEN_JSON).map(raw) },
        { weight: 1, arbitrary: hostileJson },
        { weight: 1, arbitrary: fc.constant(undefined) },
      )
    : fc.option(fc.oneof(hostileJson, fc.constantFrom(...BROKEN_JSON).map(raw)), { nil: undefined, freq: 8 });
  return fc.record({
    token: tokenArb,
    signature: operation.method === 'POST' ? fc.constantFrom<'none' | 'garbage' | 'valid'>('none', 'none', 'none', 'none', 'none', 'none', 'garbage', 'valid') : fc.constant('none' as const),
    accept: fc.constantFrom(undefined, undefined, undefined, undefined, 'application/x-ndjson', 'text/html', '*/*'),
    path,
    query,
    body,
    transport: operation.body ? transportArb : fc.constant<Transport>({ kind: 'normal' }),
  });
}

export interface BuiltRequest {
  request: RawRequest;
  /** A short body is answered or the connection closed: both are fine, the client broke HTTP first. */
  mayGoUnanswered: boolean;
  /** The request body is not well-formed UTF-8 JSON sent as application/json. */
  bodyMalformed: boolean;
  /** A path parameter that can change routing (slash, empty, raw, oversized), or a URL the HTTP parser refuses (raw bytes, oversized). */
  pathOdd: boolean;
  /** The body as the suite meant it, parsed (undefined when it is not JSON). */
  parsedBody?: unknown;
  /** The Authorization header presented no usable credential. */
  unauthenticated: boolean;
  /** The body's bytes are not UTF-8, or are sent as another charset or encoding: storing them as sent is impossible. */
  notUtf8: boolean;
}

export function buildRequest(operation: Operation, c: HostileCase, tokens: Tokens): BuiltRequest {
  const pathOdd = Object.values(c.path).some(
    (v) => v.encoding === 'raw' || v.value === '' || /[/?#%\\\ud800-\udfff]/.test(v.value) || v.value.length > 100 || /^\.{1,2}$/.test(v.value),
  );
  let target = operation.pathTemplate.replace(/\{([^}]+)\}/g, (_, name: string) => writeUrlValue(c.path[name] ?? { value: 'x', encoding: 'component' }));
  if (c.query.length > 0) target += `?${c.query.map(([k, v]) => `${writeUrlValue({ value: k, encoding: v.encoding })}=${writeUrlValue(v)}`).join('&')}`;
  // Node's HTTP parser answers these itself (400 for bytes a request line cannot hold, 431 past 16 KiB of head), before any route or guard.
  const urlOdd = pathOdd || target.length > 8_000 || c.query.some(([, v]) => v.encoding === 'raw');

  const headers: Array<[string, string]> = [];
  const secret = c.token === 'admin' || c.token === 'basic' ? tokens.admin : c.token === 'ingest' ? tokens.ingest : c.token === 'read' ? tokens.read : c.token === 'revoked' ? tokens.revoked : undefined;
  switch (c.token) {
    case 'none':
      break;
    case 'garbage':
      headers.push(['authorization', `Bearer pat_prod_${'0'.repeat(64)}`]);
      break;
    case 'basic':
      headers.push(['authorization', `Basic ${Buffer.from(`${tokens.admin}:`).toString('base64')}`]);
      break;
    case 'malformed-header':
      headers.push(['authorization', `Bearer ${tokens.admin} extra`]);
      break;
    default:
      headers.push(['authorization', `Bearer ${secret}`]);
  }
  if (c.accept) headers.push(['accept', c.accept]);

  let body: Buffer | undefined = c.body ? toBytes(c.body) : undefined;
  let parsedBody: unknown;
  let bodyMalformed = false;
  const notUtf8 = body !== undefined && !Buffer.from(body.toString('utf8'), 'utf8').equals(body);
  if (body) {
    try {
      parsedBody = JSON.parse(body.toString('utf8'));
      if (notUtf8) bodyMalformed = true;
    } catch {
      bodyMalformed = true;
    }
    // Over the limit, or keys Fastify's parser refuses (prototype poisoning): refused while parsing, before any guard runs.
    if (body.length > 1024 * 1024 || /"(__proto__|constructor)"\s*:/.test(body.toString('utf8'))) bodyMalformed = true;
  }
  if (c.signature !== 'none' && body && secret) {
    const signature = c.signature === 'valid' ? createHmac('sha256', secret).update(body).digest('hex') : 'zz';
    headers.push(['x-foresight-signature', `v1=${signature}`]);
  }

  // Chunked framing is valid HTTP: such a body is as malformed as its JSON, no more.
  const jsonMalformed = bodyMalformed;
  let contentLength: RawRequest['contentLength'] = body ? 'auto' : 'omit';
  let mayGoUnanswered = false;
  const t = c.transport;
  if (body) {
    if (t.kind === 'normal') headers.push(['content-type', 'application/json']);
    else {
      bodyMalformed = true;
      if (t.kind === 'content-type') headers.push(['content-type', t.value]);
      else if (t.kind !== 'no-content-type') headers.push(['content-type', 'application/json']);
      if (t.kind === 'content-encoding') {
        headers.push(['content-encoding', t.value]);
        if (t.compress) body = gzipSync(body);
      } else if (t.kind === 'gzip-bomb') {
        headers.push(['content-encoding', 'gzip']);
        body = gzipSync(Buffer.from(`{"event":"x","userId":"u","properties":{"p":"${'a'.repeat(8 * 1024 * 1024)}"}}`));
      } else if (t.kind === 'content-length') {
        if (t.mode === 'short') {
          contentLength = body.length + 10;
          mayGoUnanswered = true;
        } else if (t.mode === 'long') contentLength = Math.max(0, body.length - 1);
        else if (t.mode === 'garbage') contentLength = 'abc';
        else if (t.mode === 'negative') contentLength = '-1';
        else {
          contentLength = 'omit';
          headers.push(['content-length', String(body.length)], ['content-length', String(body.length + 1)]);
        }
      } else if (t.kind === 'chunked') {
        contentLength = 'omit';
        headers.push(['transfer-encoding', 'chunked']);
        body = Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]);
        bodyMalformed = jsonMalformed;
      } else if (t.kind === 'utf16') body = Buffer.from(body.toString('utf8'), 'utf16le');
      else if (t.kind === 'bom') body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]);
    }
  }
  const unauthenticated = ['none', 'garbage', 'revoked', 'malformed-header'].includes(c.token);
  const foreign = t.kind === 'utf16' || (t.kind === 'content-type' && /charset=(?!utf-8)/i.test(t.value) && /[^\p{ASCII}]/u.test(body?.toString('latin1') ?? ''));
  return { request: { method: operation.method, target, headers, body, contentLength }, mayGoUnanswered, bodyMalformed, pathOdd: urlOdd, parsedBody, unauthenticated, notUtf8: notUtf8 || foreign };
}

/** The case as a person reads it in a failure message. */
export function describeCase(operation: Operation, c: HostileCase, built: BuiltRequest): string {
  const headers = built.request.headers.map(([k, v]) => `${k}: ${k === 'authorization' ? v.replace(/pat_\w+/, `<${c.token} token>`) : fold(v, 120)}`);
  return [
    `${operation.method} ${fold(built.request.target, 400)}`,
    `  token=${c.token} signature=${c.signature} transport=${JSON.stringify(c.transport)}`,
    `  headers: ${headers.join(' | ')}`,
    `  body: ${describeJson(c.body)}`,
  ].join('\n');
}
