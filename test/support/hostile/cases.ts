import { createHmac } from 'node:crypto';
import { deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { LONE_SURROGATE } from './contract';
import { describe as describeJson, fold, type JsonText, obj, raw, str, toBytes } from './json-text';
import type { JsonSchema, Operation } from './openapi';
import type { RawRequest } from './raw-http';
import {
  amplifiedArb,
  fieldArb,
  hostileJson,
  hostileString,
  mutatedArb,
  segmentBodyArb,
  staticPathArb,
  type UrlValue,
  urlValueArb,
  type ValueContext,
  writeUrlValue,
} from './values';

/**
 * Who the request claims to be. `admin` (organization A, every scope) is most cases, so requests reach validation and the database.
 * `basic-ingest` and `writekey` present the ingest token as Segment's SDKs do: as Basic auth's user name, or as the body's `writeKey` with no header.
 */
export type TokenKind = 'admin' | 'ingest' | 'read' | 'none' | 'garbage' | 'revoked' | 'basic' | 'basic-ingest' | 'writekey' | 'writekey-revoked' | 'malformed-header';

/** A body compressed as Content-Encoding says, whole or broken in one of the ways a client or an attacker breaks it. */
export type CompressedForm = 'whole' | 'truncated' | 'trailing-bytes' | 'two-members' | 'double' | 'raw-deflate' | 'padded-to-limit' | 'padded-over-limit';

export type Transport =
  | { kind: 'normal' }
  | { kind: 'content-type'; value: string }
  | { kind: 'no-content-type' }
  | { kind: 'content-encoding'; value: string; compress: boolean }
  | { kind: 'gzip-bomb' }
  | { kind: 'compressed'; encoding: 'gzip' | 'x-gzip' | 'deflate'; form: CompressedForm }
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
  /** Headers a file server or cache reads: Range, the conditional ones; and a client's request id. */
  headers: Array<[string, string]>;
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

const COMPRESSED_FORMS: CompressedForm[] = ['whole', 'truncated', 'trailing-bytes', 'two-members', 'double', 'raw-deflate', 'padded-to-limit', 'padded-over-limit'];

/** Compressed bodies: what every ingestion route accepts (CONTRACT.md), so they are common there. */
const compressedArb: fc.Arbitrary<Transport> = fc
  .record({ encoding: fc.constantFrom<'gzip' | 'x-gzip' | 'deflate'>('gzip', 'gzip', 'x-gzip', 'deflate'), form: fc.constantFrom(...COMPRESSED_FORMS) })
  .map((v): Transport => ({ kind: 'compressed', ...v }));

const transportArb = (operation: Operation): fc.Arbitrary<Transport> => fc.oneof(
  { weight: 30, arbitrary: fc.constant<Transport>({ kind: 'normal' }) },
  { weight: operation.ingestion ? 10 : 1, arbitrary: compressedArb },
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

/** Segment-compatible routes are driven as Segment's SDKs call them as often as with a Bearer token. */
const tokenArb = (operation: Operation): fc.Arbitrary<TokenKind> =>
  fc.oneof(
    { weight: operation.segmentCompatible ? 12 : 24, arbitrary: fc.constant<TokenKind>('admin') },
    { weight: operation.segmentCompatible ? 12 : 0, arbitrary: fc.constantFrom<TokenKind>('basic-ingest', 'writekey') },
    { weight: 2, arbitrary: fc.constantFrom<TokenKind>('ingest', 'read') },
    { weight: 3, arbitrary: fc.constantFrom<TokenKind>('none', 'garbage', 'revoked', 'basic', 'malformed-header', 'basic-ingest', 'writekey', 'writekey-revoked') },
  );

const RANGES = [
  'bytes=99999-',
  'bytes=0-10',
  'bytes=-5',
  'bytes=-0',
  'bytes=5-1',
  'bytes=0-0,2-3',
  'bytes=0-1,0-1,0-1',
  'bytes=abc',
  'items=0-1',
  'bytes=',
  'bytes=0-99999999999999999999',
  'bytes=-99999999999',
  `bytes=${'0-1,'.repeat(400)}0-1`,
];
const ENTITY_TAGS = ['"x"', '*', 'W/"x"', '"', 'x', '"a", "b"', ''];
const HTTP_DATES = ['Thu, 01 Jan 1970 00:00:00 GMT', 'Sat, 01 Jan 2100 00:00:00 GMT', 'yesterday', '', '0'];

/** Range and conditional headers (mostly on static files, which honour them), and a client's request id. */
const headersArb = (operation: Operation): fc.Arbitrary<Array<[string, string]>> => {
  const header = fc.oneof(
    fc.constantFrom(...RANGES).map((v): [string, string] => ['range', v]),
    fc.tuple(fc.constantFrom('if-match', 'if-none-match', 'if-range'), fc.constantFrom(...ENTITY_TAGS)).map(([k, v]): [string, string] => [k, v]),
    fc.tuple(fc.constantFrom('if-modified-since', 'if-unmodified-since', 'if-range'), fc.constantFrom(...HTTP_DATES)).map(([k, v]): [string, string] => [k, v]),
    // Printable only: a CR or LF would split the request, which the transport cases do on purpose elsewhere.
    hostileString.filter((v) => !/[\p{Cc}\u2028\u2029]/u.test(v)).map((v): [string, string] => ['x-request-id', v]),
  );
  return fc.oneof(
    { weight: operation.staticFiles ? 1 : 12, arbitrary: fc.constant<Array<[string, string]>>([]) },
    { weight: operation.staticFiles ? 4 : 1, arbitrary: fc.uniqueArray(header, { minLength: 1, maxLength: 3, selector: ([k]) => k }) },
  );
};

const EXTRA_QUERY_KEYS = ['extra', '__proto__', 'constructor', 'userId[]', 'a[b]', '', '%00', 'limit', 'since', 'userId'];

export function caseArb(operation: Operation, ctx: ValueContext): fc.Arbitrary<HostileCase> {
  const path = fc.record(Object.fromEntries(operation.pathParams.map((p) => [p.name, operation.staticFiles ? staticPathArb(ctx) : urlValueArb(p.name, p.schema, ctx)])));
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
        ...(operation.segmentCompatible ? [{ weight: 8, arbitrary: segmentBodyArb(ctx) }] : []),
        ...(amplified ? [{ weight: 1, arbitrary: amplified }] : []),
        { weight: 4, arbitrary: fieldArb(operation.body, ctx, 'body') },
        { weight: 1, arbitrary: fc.constantFrom(...BROKEN_JSON).map(raw) },
        { weight: 1, arbitrary: hostileJson },
        { weight: 1, arbitrary: fc.constant(undefined) },
      )
    : fc.option(fc.oneof(hostileJson, fc.constantFrom(...BROKEN_JSON).map(raw)), { nil: undefined, freq: 8 });
  return fc.record({
    token: tokenArb(operation),
    signature: operation.method === 'POST' ? fc.constantFrom<'none' | 'garbage' | 'valid'>('none', 'none', 'none', 'none', 'none', 'none', 'garbage', 'valid') : fc.constant('none' as const),
    accept: fc.constantFrom(undefined, undefined, undefined, undefined, 'application/x-ndjson', 'text/html', '*/*'),
    path,
    query,
    body,
    transport: operation.body ? transportArb(operation) : fc.constant<Transport>({ kind: 'normal' }),
    headers: headersArb(operation),
  });
}

export interface BuiltRequest {
  request: RawRequest;
  /** A short body is answered or the connection closed: both are fine, the client broke HTTP first. */
  mayGoUnanswered: boolean;
  /** The request body is not well-formed UTF-8 JSON sent as application/json. */
  bodyMalformed: boolean;
  /** A path parameter that can change routing (slash, empty, raw, oversized), or a URL or head the HTTP parser refuses (raw bytes, oversized). */
  pathOdd: boolean;
  /** The body as the suite meant it, parsed (undefined when it is not JSON). */
  parsedBody?: unknown;
  /** No usable credential: the Authorization header, the body's writeKey or the settings URL's key presented none. */
  unauthenticated: boolean;
  /** The body's bytes are not UTF-8, or are sent as another charset or encoding: storing them as sent is impossible. */
  notUtf8: boolean;
  /** Where an id or a declared field carries text that is not Unicode (a lone surrogate, bytes that are not UTF-8): `query userId`, `body userIds.0`. */
  notUnicode: string[];
  /**
   * A Segment batch the contract answers 200 whatever its messages hold (invalid ones are skipped): JSON within
   * every limit of the body as a whole, at a URL the API reads, sent by a caller with the ingest scope.
   */
  segmentBatchWithinLimits: boolean;
  /** Which hostile surfaces the case reaches (SURFACES), counted by the suite so a reader sees each was reached. */
  surfaces: Surface[];
}

/** The surfaces issue 40 requires the fuzz run to reach; the suite fails when one got no case. */
export const SURFACES = [
  'Segment route, Basic auth with the ingest token',
  'Segment route, body writeKey without a header',
  'Segment batch with a prototype key in one message',
  'gzip or deflate body, whole',
  'gzip or deflate body, broken (truncated, trailing bytes, two members, double, raw deflate)',
  'gzip body decompressing to just under 1 MiB',
  'gzip bomb past 1 MiB',
  'batch of many items (events, user ids)',
  'lone surrogate escaped in the JSON body',
  'bytes that are not UTF-8 in the body',
  'lone surrogate or non-UTF-8 bytes in the URL',
  'static file path escaping its root',
  'Range header',
  'conditional header (If-Match, If-None-Match, If-Range, If-(Un)Modified-Since)',
] as const;
export type Surface = (typeof SURFACES)[number];

const LIMIT = 1024 * 1024;
const PROTOTYPE_KEY = /"(__proto__|constructor)"\s*:/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

function isUtf8(bytes: Buffer): boolean {
  try {
    utf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** A URL value's bytes after one percent-decoding, as the server reads them. */
function decodedBytes(written: Buffer): Buffer {
  const out: number[] = [];
  for (let i = 0; i < written.length; i++) {
    const hex = written.subarray(i + 1, i + 3).toString('latin1');
    if (written[i] === 0x25 && /^[0-9a-fA-F]{2}$/.test(hex)) {
      out.push(parseInt(hex, 16));
      i += 2;
    } else out.push(written[i]);
  }
  return Buffer.from(out);
}

/** Dotted paths of the strings that are not Unicode text in a parsed body, where the schema declares a field (unknown keys may be dropped, not stored). */
function notUnicodeFields(value: unknown, schema: JsonSchema | undefined, path: string): string[] {
  if (schema === undefined) return [];
  const alternatives = [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? [path || '(body)'] : [];
  if (Array.isArray(value)) {
    const items = alternatives.find((s) => s.items)?.items;
    return value.flatMap((item, i) => notUnicodeFields(item, items, path ? `${path}.${i}` : String(i)));
  }
  if (value !== null && typeof value === 'object') {
    const properties = alternatives.find((s) => s.properties)?.properties ?? {};
    return Object.entries(value).flatMap(([key, inner]) => (Object.hasOwn(properties, key) ? notUnicodeFields(inner, properties[key], path ? `${path}.${key}` : key) : []));
  }
  return [];
}

function depthOf(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') deepest = Math.max(deepest, ++depth);
    else if (c === '}' || c === ']') depth--;
  }
  return deepest;
}

/** With the token of organization A that `kind` presents (undefined for none or garbage). */
function secretOf(kind: TokenKind, tokens: Tokens): string | undefined {
  if (kind === 'admin' || kind === 'basic') return tokens.admin;
  if (kind === 'ingest' || kind === 'basic-ingest' || kind === 'writekey') return tokens.ingest;
  if (kind === 'read') return tokens.read;
  if (kind === 'revoked' || kind === 'writekey-revoked') return tokens.revoked;
  return undefined;
}

export function buildRequest(operation: Operation, c: HostileCase, tokens: Tokens): BuiltRequest {
  const surfaces = new Set<Surface>();
  const pathValues = Object.values(c.path);
  const pathOdd = pathValues.some(
    (v) => v.encoding !== 'component' || v.value === '' || /[/?#%\\\ud800-\udfff]/.test(v.value) || v.value.length > 100 || /^\.{1,2}$/.test(v.value),
  );
  const parts: Buffer[] = [];
  let last = 0;
  for (const m of operation.pathTemplate.matchAll(/\{([^}]+)\}/g)) {
    parts.push(Buffer.from(operation.pathTemplate.slice(last, m.index), 'utf8'), writeUrlValue(c.path[m[1]] ?? { value: 'x', encoding: 'component' }));
    last = m.index + m[0].length;
  }
  parts.push(Buffer.from(operation.pathTemplate.slice(last), 'utf8'));
  c.query.forEach(([k, v], i) => parts.push(Buffer.from(i === 0 ? '?' : '&'), writeUrlValue({ value: k, encoding: v.encoding === 'bytes' ? 'raw' : v.encoding }), Buffer.from('='), writeUrlValue(v)));
  const target = Buffer.concat(parts);
  // Node's HTTP parser answers these itself (400 for bytes a request line cannot hold, 431 past 16 KiB of head), before any route or guard.
  const urlOdd = pathOdd || target.length + c.headers.reduce((n, [, v]) => n + v.length, 0) > 8_000 || c.query.some(([, v]) => v.encoding !== 'component');
  const urlIds = [
    ...(operation.staticFiles ? [] : Object.entries(c.path).map(([name, v]): [string, UrlValue] => [`path ${name}`, v])),
    ...c.query.filter(([name]) => /Id$|^model$/.test(name) && operation.queryParams.some((p) => p.name === name)).map(([name, v]): [string, UrlValue] => [`query ${name}`, v]),
  ];
  const notUnicode = urlIds.filter(([, v]) => !isUtf8(decodedBytes(writeUrlValue(v)))).map(([where]) => where);
  // A query the API reads: UTF-8 once decoded, and no NUL (either is refused as a whole, whatever the route).
  const readable = (v: UrlValue) => isUtf8(decodedBytes(writeUrlValue(v))) && !decodedBytes(writeUrlValue(v)).includes(0);
  const queryReadable = c.query.every(([k, v]) => readable(v) && readable({ value: k, encoding: v.encoding === 'bytes' ? 'raw' : v.encoding }));
  if ([...pathValues, ...c.query.map(([, v]) => v)].some((v) => !isUtf8(decodedBytes(writeUrlValue(v))))) surfaces.add('lone surrogate or non-UTF-8 bytes in the URL');
  if (operation.staticFiles && pathValues.some((v) => /\.\.|%2e|%5c|\\|etc\/passwd|^\//i.test(v.value))) surfaces.add('static file path escaping its root');

  const headers: Array<[string, string]> = [];
  const secret = secretOf(c.token, tokens);
  switch (c.token) {
    case 'none':
    case 'writekey':
    case 'writekey-revoked':
      break;
    case 'garbage':
      headers.push(['authorization', `Bearer pat_prod_${'0'.repeat(64)}`]);
      break;
    case 'basic':
    case 'basic-ingest':
      headers.push(['authorization', `Basic ${Buffer.from(`${secret}:`).toString('base64')}`]);
      break;
    case 'malformed-header':
      headers.push(['authorization', `Bearer ${tokens.admin} extra`]);
      break;
    default:
      headers.push(['authorization', `Bearer ${secret}`]);
  }
  if (c.accept) headers.push(['accept', c.accept]);
  headers.push(...c.headers);
  if (c.headers.some(([k]) => k === 'range')) surfaces.add('Range header');
  if (c.headers.some(([k]) => k.startsWith('if-'))) surfaces.add('conditional header (If-Match, If-None-Match, If-Range, If-(Un)Modified-Since)');

  // Segment's mobile SDKs send the write key in the body, and no header.
  const writeKeyed = (c.token === 'writekey' || c.token === 'writekey-revoked') && c.body?.t === 'obj' && secret !== undefined;
  const sentBody = writeKeyed && c.body?.t === 'obj' ? obj([['writeKey', str(secret)], ...c.body.entries.filter(([k]) => k !== 'writeKey')]) : c.body;
  if (writeKeyed && operation.segmentCompatible) surfaces.add('Segment route, body writeKey without a header');
  if (c.token === 'basic-ingest' && operation.segmentCompatible) surfaces.add('Segment route, Basic auth with the ingest token');

  let body: Buffer | undefined = sentBody ? toBytes(sentBody) : undefined;
  let parsedBody: unknown;
  let bodyMalformed = false;
  const notUtf8 = body !== undefined && !isUtf8(body);
  if (notUtf8) surfaces.add('bytes that are not UTF-8 in the body');
  const text = body?.toString('utf8') ?? '';
  if (body) {
    try {
      parsedBody = JSON.parse(text);
      if (notUtf8) bodyMalformed = true;
    } catch {
      bodyMalformed = true;
    }
    // Over the limit, nested past what any body may be (apps/api json-body.ts), or keys Fastify's parser refuses
    // (prototype poisoning): refused while parsing, before any guard runs.
    if (body.length > LIMIT || depthOf(text) > 64 || PROTOTYPE_KEY.test(text)) bodyMalformed = true;
  }
  if (/\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}/.test(text)) surfaces.add('lone surrogate escaped in the JSON body');
  if (!operation.ingestion && parsedBody !== undefined) notUnicode.push(...notUnicodeFields(parsedBody, operation.body, '').map((path) => `body ${path}`));
  const batch = (parsedBody as { batch?: unknown } | undefined)?.batch;
  const lists: unknown[] = Array.isArray(parsedBody) ? [parsedBody] : [batch, ...Object.values((parsedBody ?? {}) as Record<string, unknown>)];
  if (lists.some((v) => Array.isArray(v) && v.length > 100)) {
    surfaces.add('batch of many items (events, user ids)');
  }
  const prototypeInMessage = Array.isArray(batch) && batch.some((m) => PROTOTYPE_KEY.test(JSON.stringify(m) ?? ''));
  if (operation.segmentCompatible && prototypeInMessage) surfaces.add('Segment batch with a prototype key in one message');

  if (c.signature !== 'none' && body && secret) {
    const signature = c.signature === 'valid' ? createHmac('sha256', secret).update(body).digest('hex') : 'zz';
    headers.push(['x-foresight-signature', `v1=${signature}`]);
  }

  // Chunked framing is valid HTTP: such a body is as malformed as its JSON, no more.
  const jsonMalformed = bodyMalformed;
  let contentLength: RawRequest['contentLength'] = body ? 'auto' : 'omit';
  let mayGoUnanswered = false;
  let decompressedLength = body?.length ?? 0;
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
      } else if (t.kind === 'compressed') {
        headers.push(['content-encoding', t.encoding]);
        ({ body, decompressedLength } = compressed(body, t.encoding, t.form));
        // Whole compressed JSON on an ingestion route is a well-formed request.
        if (operation.ingestion && ['whole', 'padded-to-limit'].includes(t.form)) bodyMalformed = jsonMalformed;
        surfaces.add(
          t.form === 'whole'
            ? 'gzip or deflate body, whole'
            : t.form === 'padded-to-limit'
              ? 'gzip body decompressing to just under 1 MiB'
              : t.form === 'padded-over-limit'
                ? 'gzip bomb past 1 MiB'
                : 'gzip or deflate body, broken (truncated, trailing bytes, two members, double, raw deflate)',
        );
      } else if (t.kind === 'gzip-bomb') {
        headers.push(['content-encoding', 'gzip']);
        body = gzipSync(Buffer.from(`{"event":"x","userId":"u","properties":{"p":"${'a'.repeat(8 * 1024 * 1024)}"}}`));
        surfaces.add('gzip bomb past 1 MiB');
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
  const credentialed = (() => {
    // The settings URL's key decides, whatever header is sent.
    const pathKey = c.path.writeKey;
    if (pathKey) return pathKey.value === tokens.ingest && pathKey.encoding !== 'bytes';
    if (c.token === 'writekey') return writeKeyed && operation.segmentCompatible;
    return !['none', 'garbage', 'revoked', 'malformed-header', 'writekey-revoked'].includes(c.token);
  })();
  const foreign = t.kind === 'utf16' || (t.kind === 'content-type' && /charset=(?!utf-8)/i.test(t.value) && /[^\p{ASCII}]/u.test(body?.toString('latin1') ?? ''));
  const wholeBody = t.kind === 'normal' || (t.kind === 'compressed' && ['whole', 'padded-to-limit'].includes(t.form));
  const messages = Array.isArray(batch) ? batch : [];
  const segmentBatchWithinLimits =
    operation.segmentCompatible &&
    credentialed &&
    queryReadable &&
    c.token !== 'read' &&
    wholeBody &&
    // A request line past Node's header limit (16 KiB with the headers) is refused before any message is read.
    target.length <= 8_192 &&
    !notUtf8 &&
    decompressedLength <= LIMIT &&
    c.headers.every(([, v]) => v.length < 1_000) &&
    parsedBody !== null &&
    typeof parsedBody === 'object' &&
    !Array.isArray(parsedBody) &&
    Object.keys(parsedBody).every((k) => k === 'batch' || k === 'writeKey') &&
    messages.length >= 1 &&
    messages.length <= 1_000 &&
    messages.every((m) => m !== null && typeof m === 'object' && !Array.isArray(m)) &&
    !text.includes('\\u0000') &&
    depthOf(text) <= 32;
  return {
    request: { method: operation.method, target, headers, body, contentLength },
    mayGoUnanswered,
    bodyMalformed,
    pathOdd: urlOdd,
    parsedBody,
    unauthenticated: !credentialed,
    notUtf8: notUtf8 || foreign,
    notUnicode,
    segmentBatchWithinLimits,
    surfaces: [...surfaces],
  };
}

/** The body compressed as `encoding`, in one of the forms a client sends, with the size it decompresses to. */
function compressed(json: Buffer, encoding: 'gzip' | 'x-gzip' | 'deflate', form: CompressedForm): { body: Buffer; decompressedLength: number } {
  const squeeze = (bytes: Buffer) => (encoding === 'deflate' ? deflateSync(bytes) : gzipSync(bytes));
  // JSON allows any whitespace after the value: a valid body that decompresses to exactly the size wanted.
  const padded = (size: number) => Buffer.concat([json, Buffer.alloc(Math.max(0, size - json.length), 0x20)]);
  const whole = squeeze(json);
  switch (form) {
    case 'whole':
      return { body: whole, decompressedLength: json.length };
    case 'truncated':
      return { body: whole.subarray(0, Math.max(1, Math.floor(whole.length / 2))), decompressedLength: json.length };
    case 'trailing-bytes':
      return { body: Buffer.concat([whole, Buffer.from('garbage')]), decompressedLength: json.length };
    case 'two-members':
      return { body: Buffer.concat([whole, whole]), decompressedLength: 2 * json.length };
    case 'double':
      return { body: squeeze(whole), decompressedLength: whole.length };
    case 'raw-deflate':
      return { body: deflateRawSync(json), decompressedLength: json.length };
    case 'padded-to-limit':
      return { body: squeeze(padded(LIMIT - 16)), decompressedLength: Math.max(json.length, LIMIT - 16) };
    case 'padded-over-limit':
      return { body: squeeze(padded(LIMIT + 1)), decompressedLength: Math.max(json.length, LIMIT + 1) };
  }
}

/** The case as a person reads it in a failure message. */
export function describeCase(operation: Operation, c: HostileCase, built: BuiltRequest): string {
  const headers = built.request.headers.map(([k, v]) => `${k}: ${k === 'authorization' ? v.replace(/pat_\w+/, `<${c.token} token>`) : fold(v, 120)}`);
  const target = isUtf8(built.request.target) ? built.request.target.toString('utf8') : [...built.request.target].map((b) => (b < 0x80 ? String.fromCharCode(b) : `\\x${b.toString(16).toUpperCase()}`)).join('');
  return [
    `${operation.method} ${fold(target, 400)}`,
    `  token=${c.token} signature=${c.signature} transport=${JSON.stringify(c.transport)}`,
    `  headers: ${headers.join(' | ')}`,
    `  body: ${describeJson(c.body)}`,
  ].join('\n');
}
