import fc from 'fast-check';
import { arr, type JsonText, obj, raw, str } from './json-text';
import type { JsonSchema } from './openapi';

/**
 * Hostile values. Each list starts with its mildest entry: fast-check shrinks constantFrom towards
 * the first, so a counterexample ends on the simplest value that still fails.
 */
export const HOSTILE_STRINGS: string[] = [
  'x',
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '%00',
  'a%00b',
  '\ud800',
  '\udfff',
  'x\udc00y',
  '\ud83d',
  '\r\n',
  '\t',
  '\u0007\u001b[31m',
  '\u007f',
  '\u0085\u2028\u2029',
  '\u202egnp.exe',
  '\u200b\u200c\u200d\ufeff',
  'e\u0301',
  'İı',
  '👩‍👩‍👧‍👦',
  '１２３',
  'a'.repeat(256),
  'a'.repeat(10_000),
  'a'.repeat(100_000),
  `${'a'.repeat(15_000)}@${'b'.repeat(15_000)}`,
  `${'1 '.repeat(5_000)}x`,
  'someone@example.com',
  '+49 30 1234 5678',
  "' OR 1=1 --",
  "'; DROP TABLE events; --",
  '\\',
  '%',
  '_',
  '%_%',
  '"',
  '{"a":1}',
  '[]',
  'null',
  'undefined',
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  '../../etc/passwd',
  '..%2f..%2f',
  '/',
  '?',
  '#',
  '&',
  '=',
  ';',
  '%s%s%s%n',
  '${jndi:ldap://x/a}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  'NaN',
  'Infinity',
  '-0',
  '1e309',
  '99999999999999999999',
  '-1',
  '0x10',
  'true',
  'pat_prod_',
  'mdl_aaaaaaaaaaaaaaaa',
  'mdl_AAAAAAAAAAAAAAAA',
  'mdl_aaaaaaaaaaaaaaa\u0000',
  'tok_aaaaaaaaaaaaaaaa',
  'whk_aaaaaaaaaaaaaaaa',
  // Already percent-encoded, for URLs written raw: a lone surrogate's bytes, an overlong NUL, a byte that is never UTF-8.
  '%ED%A0%80',
  '%C0%80',
  '%FF',
];

/** Strings that are not Unicode text: lone UTF-16 halves, alone or beside text, and a pair in the wrong order. */
export const LONE_SURROGATES: string[] = ['\ud800', '\udfff', 'x\udc00y', 'user-\ud83d', '\udc00\ud800'];
export const loneSurrogate = fc.constantFrom(...LONE_SURROGATES);

/** Bytes no UTF-8 decoder accepts, written into a URL as they are (not percent-encoded): ff, an overlong NUL, a surrogate's bytes, a cut sequence. */
const RAW_URL_BYTES: number[][] = [[0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0x80]];

/** Number literals as raw JSON text: some are valid JSON that JavaScript turns into Infinity, 0 or a rounded integer; some are not JSON. */
export const HOSTILE_NUMBER_TEXTS: string[] = [
  '1',
  '0',
  '-0',
  '-1',
  '1.5',
  '0.1',
  '1e-320',
  '5e-324',
  '-1e-320',
  '1e309',
  '-1e309',
  '1E400',
  '1e21',
  '99999999999999999999',
  '-99999999999999999999',
  '9007199254740993',
  '2147483648',
  '-2147483649',
  '1.0',
  '123456789012345678901234567890.5',
  'NaN',
  'Infinity',
  '-Infinity',
  '01',
  '.5',
  '1e',
  '0x1F',
  '+1',
];

export const HOSTILE_DATES: string[] = [
  '2026-11-01',
  '2026-11-01T00:00:00Z',
  '0000-01-01',
  '0000-01-01T00:00:00Z',
  '0001-01-01T00:00:00Z',
  '2026-02-30',
  '2026-02-30T10:00:00Z',
  '2026-02-29',
  '2024-02-29T00:00:00Z',
  '1900-02-29',
  '2026-13-01',
  '2026-11-22T25:00:00Z',
  '2026-11-22T23:59:60Z',
  '2026-11-22T10:00:00+24:00',
  '2026-11-22T10:00:00-23:59',
  '2026-11-22T10:00:00.123456789012Z',
  '9999-12-31',
  '9999-12-31T23:59:59Z',
  '+275760-09-13',
  '+275760-09-13T00:00:00.000Z',
  '+275760-09-14T00:00:00.000Z',
  '-271821-04-20T00:00:00.000Z',
  '-000001-01-01T00:00:00Z',
  '10000-01-01',
  '1969-12-31',
  '1969-12-31T23:59:59Z',
  '1970-01-01T00:00:00Z',
  '2100-01-01T00:00:00Z',
  '2026-11-22',
  '2026-W47',
  '2026-326',
  '20261122',
  '1763800000000',
  'yesterday',
  '2026-11-22T10:00:00Z\u0000',
  '２０２６-１１-２２',
];

const deepArray = (depth: number): JsonText => raw(`${'['.repeat(depth)}${']'.repeat(depth)}`);
const deepObject = (depth: number): JsonText => raw(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
const deepMixed = (depth: number): JsonText => raw(`${'{"a":['.repeat(depth)}1${']}'.repeat(depth)}`);

/** Keys that are dangerous as property names: prototype keys, personal data, regex bait, empty, control characters. */
export const HOSTILE_KEYS: string[] = [
  'k',
  '',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'a.b',
  '$where',
  'a\u0000b',
  '\ud800',
  'someone@example.com',
  '+49 30 1234 5678',
  `${'a'.repeat(15_000)}@${'b'.repeat(15_000)}`,
  'a'.repeat(10_000),
  '\u202e',
];

export const hostileString = fc.constantFrom(...HOSTILE_STRINGS);
export const hostileNumberText = fc.constantFrom(...HOSTILE_NUMBER_TEXTS);
export const hostileDate = fc.constantFrom(...HOSTILE_DATES);

/** Any JSON value, hostile in type, size, depth, keys or bytes. */
export const hostileJson: fc.Arbitrary<JsonText> = fc.oneof(
  hostileString.map(str),
  loneSurrogate.map(str),
  hostileNumberText.map(raw),
  hostileDate.map(str),
  fc.constantFrom('null', 'true', 'false', '[]', '{}', '""').map(raw),
  fc.constantFrom(deepArray(33), deepObject(33), deepArray(5_000), deepObject(5_000), deepMixed(2_500), deepArray(100_000)),
  fc
    .constantFrom([0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0x00])
    .map((bytes): JsonText => ({ t: 'bytes', before: 'a', bytes: [...bytes], after: 'b' })),
  fc.constantFrom(
    obj([['__proto__', obj([['polluted', raw('true')]])]]),
    obj([['constructor', obj([['prototype', obj([['polluted', raw('true')]])]])]]),
    obj([
      ['a', raw('1')],
      ['a', raw('2')],
    ]),
  ),
  fc.tuple(fc.constantFrom(...HOSTILE_KEYS), hostileString).map(([key, value]) => obj([[key, str(value)]])),
  fc.array(hostileString.map(str), { minLength: 1, maxLength: 3 }).map(arr),
  fc.constantFrom(1_001, 10_000).map((n) => arr(Array.from({ length: n }, () => obj([])))),
);

/** Values for one field the document describes: mostly valid (to get past validation), sometimes hostile. */
export interface ValueContext {
  /** Ids that exist: organization A's and B's models, tokens, webhooks. */
  knownIds: string[];
  /** User ids that exist in A and B. */
  knownUsers: string[];
  /** Property names seen anywhere in the document, plus the Segment and behavioral-signal vocabulary. */
  dictionary: string[];
  /** Unique per case, so valid creations do not collide on unique names by accident. */
  nowIso: string;
  /** Segment write keys: organization A's ingest token, and a revoked one. */
  writeKeys: string[];
  /** Files the static routes serve, relative to their root (`index.html`, `assets/index-….js`). */
  staticFiles: string[];
}

export function fieldArb(schema: JsonSchema, ctx: ValueContext, name: string, depth = 0): fc.Arbitrary<JsonText> {
  return fc.oneof({ weight: 5, arbitrary: validArb(schema, ctx, name, depth, false) }, { weight: 1, arbitrary: hostileJson });
}

/**
 * A valid value (as far as the document tells) with one or two hostile changes at random places:
 * a value replaced, or a hostile key added to an object. Everything else stays valid, so the change
 * reaches the code past validation that it targets.
 */
export function mutatedArb(schema: JsonSchema, ctx: ValueContext): fc.Arbitrary<JsonText> {
  const mutation = fc.record({
    at: fc.nat(),
    addKey: fc.boolean(),
    key: fc.constantFrom(...HOSTILE_KEYS),
    value: fc.oneof(
      { weight: 3, arbitrary: hostileJson },
      { weight: 1, arbitrary: loneSurrogate.map(str) },
      { weight: 1, arbitrary: validArb(schema, ctx, 'body', 0, true) },
    ),
  });
  return fc.tuple(validArb(schema, ctx, 'body', 0, true), fc.array(mutation, { minLength: 1, maxLength: 2 })).map(([tree, mutations]) => {
    let result = tree;
    for (const m of mutations) result = mutate(result, m);
    return result;
  });
}

/**
 * For a body that is a batch (an array of events, or an object whose list takes hundreds of ids such
 * as `{"userIds": [...]}`): one mutated item among valid ones, in a batch as large as the document
 * allows, so per-item work (regexes, validation, lookups, writes) is multiplied as a real client can.
 */
export function amplifiedArb(schema: JsonSchema, ctx: ValueContext): fc.Arbitrary<JsonText> | undefined {
  const batch = [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].find((s) => s.type === 'array' && s.items);
  if (batch?.items) {
    const most = Math.min(batch.maxItems ?? 30, 30);
    return fc.tuple(mutatedArb(batch.items, ctx), fc.constantFrom(most, 2)).map(([item, n]) => arr(Array.from({ length: n }, () => item)));
  }
  const [name, list] = Object.entries(schema.properties ?? {}).find(([, s]) => s.type === 'array' && s.items && (s.maxItems ?? 0) >= 100) ?? [];
  if (!name || !list?.items) return undefined;
  const most = list.maxItems ?? 100;
  return fc
    .tuple(validArb(list.items, ctx, name, 1, true), mutatedArb(list.items, ctx), fc.constantFrom(most, 2, most + 1), fc.nat())
    .map(([valid, hostile, n, at]) => obj([[name, arr(Array.from({ length: n }, (_, i) => (i === at % n ? hostile : valid)))]]));
}

/** Message kinds of Segment's spec, each with the fields its mapping reads. */
const SEGMENT_MESSAGES: Array<Array<[string, JsonText]>> = [
  [['type', str('track')], ['event', str('checkout_start')]],
  [['type', str('identify')], ['anonymousId', str('fuzz-anon')], ['traits', obj([['plan', str('pro')]])]],
  [['type', str('page')], ['name', str('Pricing')], ['properties', obj([['url', str('https://shop.example/pricing')]])]],
  [['type', str('screen')], ['name', str('Cart')]],
  [['type', str('alias')], ['previousId', str('fuzz-anon')]],
  [['type', str('group')], ['groupId', str('fuzz-group')]],
];

/** Where a message hides a prototype key: properties, context, traits, or one level further in. */
const PROTOTYPE_POISONS: Array<[string, JsonText]> = [
  ['properties', obj([['__proto__', obj([['event', str('polluted')], ['userId', str('polluted')]])]])],
  ['context', obj([['page', obj([['constructor', obj([['prototype', obj([['userId', str('polluted')]])]])]])]])],
  ['traits', obj([['__proto__', obj([['admin', raw('true')]])]])],
  ['properties', obj([['cart', obj([['items', arr([obj([['__proto__', obj([['x', raw('1')]])]])])]])]])],
  ['properties', obj([['constructor', obj([['prototype', obj([['x', raw('1')]])]])]])],
];

/**
 * A Segment call as SDKs send it: one message, or `{"batch": [...]}` of valid messages with one hostile
 * one among them (a prototype key, a mutated field, an id that is not Unicode text). Each message has
 * its own messageId, so valid ones are stored rather than counted as duplicates.
 */
export function segmentBodyArb(ctx: ValueContext): fc.Arbitrary<JsonText> {
  const message = (fields: Array<[string, JsonText]>, id: string): JsonText =>
    obj([['userId', str(ctx.knownUsers[0])], ['messageId', str(id)], ['timestamp', str(ctx.nowIso)], ...fields]);
  const valid = fc.constantFrom(...SEGMENT_MESSAGES);
  const hostile: fc.Arbitrary<(id: string) => JsonText> = fc.oneof(
    { weight: 3, arbitrary: fc.tuple(valid, fc.constantFrom(...PROTOTYPE_POISONS)).map(([fields, poison]) => (id: string) => message([...fields, poison], id)) },
    { weight: 2, arbitrary: fc.tuple(valid, fc.constantFrom('userId', 'messageId', 'event'), loneSurrogate).map(([fields, key, text]) => (id: string) => message([...fields, [key, str(text)]], id)) },
    { weight: 3, arbitrary: mutatedArb({ type: 'object' }, ctx).map((m) => () => m) },
  );
  const batch = fc.tuple(fc.array(valid, { minLength: 1, maxLength: 4 }), hostile, fc.nat(), fc.nat()).map(([fields, bad, at, nonce]) => {
    const messages = fields.map((f, i) => message(f, `fuzz-${nonce}-${i}`));
    messages.splice(at % (messages.length + 1), 0, bad(`fuzz-${nonce}-bad`));
    return obj([['batch', arr(messages)]]);
  });
  return fc.oneof(
    { weight: 3, arbitrary: batch },
    { weight: 1, arbitrary: fc.tuple(valid, fc.nat()).map(([fields, nonce]) => message(fields, `fuzz-${nonce}`)) },
    { weight: 1, arbitrary: fc.tuple(hostile, fc.nat()).map(([bad, nonce]) => bad(`fuzz-${nonce}`)) },
  );
}

function mutate(tree: JsonText, m: { at: number; addKey: boolean; key: string; value: JsonText }): JsonText {
  const nodes: JsonText[] = [];
  const collect = (node: JsonText) => {
    nodes.push(node);
    if (node.t === 'obj') node.entries.forEach(([, v]) => collect(v));
    if (node.t === 'arr') node.items.forEach(collect);
  };
  collect(tree);
  const target = nodes[m.at % nodes.length];
  const rebuild = (node: JsonText): JsonText => {
    if (node === target) {
      if (m.addKey && node.t === 'obj') return obj([...node.entries, [m.key, m.value.t === 'obj' ? str('v') : m.value]]);
      return m.value;
    }
    if (node.t === 'obj') return obj(node.entries.map(([k, v]) => [k, rebuild(v)]));
    if (node.t === 'arr') return arr(node.items.map(rebuild));
    return node;
  };
  return rebuild(tree);
}

function validArb(schema: JsonSchema, ctx: ValueContext, name: string, depth: number, pure: boolean): fc.Arbitrary<JsonText> {
  const child = (s: JsonSchema, n: string) => (pure ? validArb(s, ctx, n, depth + 1, true) : fieldArb(s, ctx, n, depth + 1));
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives && alternatives.length > 0) return fc.oneof(...alternatives.map((s) => validArb(s, ctx, name, depth, pure)));
  if (schema.enum && schema.enum.length > 0) return fc.constantFrom(...schema.enum).map((v) => raw(JSON.stringify(v)));
  const nullable = (a: fc.Arbitrary<JsonText>) => (schema.nullable ? fc.oneof({ weight: 4, arbitrary: a }, { weight: 1, arbitrary: fc.constant(raw('null')) }) : a);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'object' || schema.properties) {
    if (!schema.properties || Object.keys(schema.properties).length === 0) return nullable(openObject(ctx, depth, pure));
    return nullable(objectArb(schema, ctx, pure, child));
  }
  if (type === 'array') {
    const items = schema.items ?? {};
    const min = Math.min(schema.minItems ?? 0, 3);
    const max = Math.max(min, Math.min(schema.maxItems ?? 3, 3));
    return nullable(fc.array(child(items, name), { minLength: Math.max(min, pure ? 1 : 0), maxLength: max }).map(arr));
  }
  if (type === 'string') return nullable(stringArb(schema, ctx, name, pure));
  if (type === 'integer') return nullable(fc.integer({ min: schema.minimum ?? -1_000, max: schema.maximum ?? 1_000 }).map((n) => raw(String(n))));
  if (type === 'number') return nullable(fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => raw(JSON.stringify(n))));
  if (type === 'boolean') return nullable(fc.boolean().map((b) => raw(String(b))));
  return namedValue(name, ctx, depth, pure);
}

function objectArb(
  schema: JsonSchema,
  ctx: ValueContext,
  pure: boolean,
  child: (s: JsonSchema, name: string) => fc.Arbitrary<JsonText>,
): fc.Arbitrary<JsonText> {
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties ?? {}).map(([key, childSchema]) => {
    const value = child(childSchema, key);
    // Valid: required fields always, optional ones often. Mixed: a required field is sometimes missing.
    const freq = required.has(key) ? (pure ? 0 : 12) : 2;
    if (freq === 0) return value.map((v): [string, JsonText] | undefined => [key, v]);
    return fc.option(value.map((v): [string, JsonText] => [key, v]), { nil: undefined, freq });
  });
  const extra = pure
    ? fc.constant(undefined)
    : fc.option(
        fc.tuple(fc.constantFrom(...HOSTILE_KEYS, ...ctx.dictionary.slice(0, 40)), hostileJson).map(([k, v]): [string, JsonText] => [k, v]),
        { nil: undefined, freq: 6 },
      );
  return fc.tuple(fc.tuple(...fields), extra).map(([entries, more]) =>
    obj([...entries.filter((e): e is [string, JsonText] => e !== undefined), ...(more ? [more] : [])]),
  );
}

/** An object the document leaves open (Segment messages, properties, context): keys from the dictionary, values by name. */
function openObject(ctx: ValueContext, depth: number, pure: boolean): fc.Arbitrary<JsonText> {
  if (depth > 3) return fc.constant(obj([]));
  const key = pure
    ? fc.constantFrom(...ctx.dictionary)
    : fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...ctx.dictionary) }, { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_KEYS) });
  const entry = key.chain((k) =>
    (pure ? namedValue(k, ctx, depth + 1, true) : fc.oneof({ weight: 4, arbitrary: namedValue(k, ctx, depth + 1, false) }, { weight: 1, arbitrary: hostileJson })).map(
      (v): [string, JsonText] => [k, v],
    ),
  );
  // A Segment message names its kind and its user; without them nothing gets past validation.
  const base: Array<[string, JsonText]> = depth === 0 ? [['type', str('track')], ['event', str('checkout_start')], ['userId', str(ctx.knownUsers[0])]] : [];
  return fc.uniqueArray(entry, { maxLength: 6, selector: ([k]) => k }).map((entries) => obj([...base.filter(([k]) => !entries.some(([e]) => e === k)), ...entries]));
}

/** A plausible value for a field known only by its name. */
function namedValue(name: string, ctx: ValueContext, depth: number, pure: boolean): fc.Arbitrary<JsonText> {
  if (/^(type)$/.test(name)) return fc.constantFrom('track', 'identify', 'page', 'screen', 'alias', 'group').map(str);
  if (/(timestamp|At|since|until|date)$/i.test(name)) return pure ? fc.constant(str(ctx.nowIso)) : fc.oneof(fc.constant(str(ctx.nowIso)), hostileDate.map(str));
  if (/^(userId|anonymousId|previousId|groupId)$/.test(name)) return fc.constantFrom(...ctx.knownUsers, 'fuzz-user').map(str);
  if (/Id$|^id$/.test(name)) return pure ? fc.constantFrom('fuzz-1', 'fuzz-2', ...ctx.knownIds).map(str) : fc.oneof(fc.constantFrom(...ctx.knownIds).map(str), hostileString.map(str));
  if (name === 'batch') return fc.array(openObject(ctx, 0, pure), { maxLength: 3 }).map(arr);
  if (/^(properties|context|traits|integrations|page|device)$/.test(name)) return openObject(ctx, depth + 1, pure);
  if (/^(url)$/.test(name)) return fc.constant(str('https://shop.example/cart'));
  if (/^(event|name|targetEvent|screen|category)$/.test(name)) return fc.constantFrom('checkout_start', 'Order Completed', 'page_view', 'cart').map(str);
  if (/^(depth)$/.test(name)) return fc.constantFrom('0.5', '0', '1').map(raw);
  if (/Ms$/.test(name)) return fc.integer({ min: 0, max: 100_000 }).map((n) => raw(String(n)));
  return fc.oneof(fc.constant(str('value')), fc.integer().map((n) => raw(String(n))), fc.constant(raw('true')));
}

function stringArb(schema: JsonSchema, ctx: ValueContext, name: string, pure: boolean): fc.Arbitrary<JsonText> {
  const max = schema.maxLength ?? 64;
  const min = schema.minLength ?? 0;
  const fits = (s: string) => s.length >= min && s.length <= max;
  if (schema.format === 'date-time') {
    if (pure) return fc.constant(str(ctx.nowIso));
    return fc.oneof(fc.constant(str(ctx.nowIso)), fc.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/).map(str));
  }
  if (schema.format === 'uri') return fc.constantFrom('https://hooks.example.com/fuzz', 'http://hooks.example.com/fuzz?x=1').map(str);
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern)).filter(fits).map(str);
  if (/userId|anonymousId/.test(name)) return fc.constantFrom(...ctx.knownUsers).map(str);
  if (/Id$/.test(name)) return fc.oneof(fc.constantFrom(...ctx.knownIds), fc.string({ minLength: Math.max(1, min), maxLength: Math.min(max, 40) })).map(str);
  if (/schedule|cron/i.test(name)) {
    const valid = ['0 3 * * *', '*/15 * * * *'];
    const hostile = ['* * * * * *', '*/5 * * * * *', '0 0 31 2 *', '@yearly', '@every 1s', '60 * * * *', '*/0 * * * *', '0 0 * * 8', '0 3 * * * * *', 'L W # ?', '0 0 29 2 1'];
    return fc.constantFrom(...valid, ...(pure ? [] : hostile)).map(str);
  }
  return fc.string({ unit: pure ? 'grapheme-ascii' : 'grapheme', minLength: Math.max(min, 1), maxLength: Math.min(max, 40) }).map(str);
}

/** A query or path value: which string, and how it is written into the URL. */
export interface UrlValue {
  value: string;
  /**
   * `component`: percent-encoded (lone surrogates as their WTF-8 bytes); `raw`: written as is (UTF-8);
   * `bytes`: each character is one byte written as is (latin1), for bytes that are not UTF-8.
   */
  encoding: 'component' | 'raw' | 'bytes';
}

export function urlValueArb(name: string, schema: JsonSchema, ctx: ValueContext): fc.Arbitrary<UrlValue> {
  const plausible: string[] = [];
  if (schema.enum) plausible.push(...schema.enum.map(String));
  if (schema.example !== undefined) plausible.push(typeof schema.example === 'string' ? schema.example : JSON.stringify(schema.example));
  if (/userId/i.test(name)) plausible.push(...ctx.knownUsers);
  if (/Id$/.test(name)) plausible.push(...ctx.knownIds);
  if (name === 'writeKey') plausible.push(...ctx.writeKeys);
  if (/^(since|until)$/.test(name)) plausible.push(ctx.nowIso.slice(0, 10), ctx.nowIso);
  if (/limit/i.test(name)) plausible.push('10');
  // Opaque paging tokens: base64url of what such a token usually holds (a position: time and id), with hostile parts.
  if (/cursor|token|page/i.test(name)) {
    for (const [at, id] of [
      ['2026-11-22T00:00:00.000000Z', '1'],
      ['2026-11-22T00:00:00.000000Z', '9999999999999999999'],
      ['2026-11-22T00:00:00.000000Z', '99999999999999999999'],
      ['0000-01-01T00:00:00.000000Z', '1'],
      ['2026-02-30T00:00:00.000000Z', '1'],
      ['9999-12-31T23:59:59.999999Z', '-1'],
      ['2026-11-22T00:00:00.000000Z\u0000', '1'],
    ]) {
      plausible.push(Buffer.from(`${at}|${id}`).toString('base64url'));
    }
  }
  if (plausible.length === 0) plausible.push('x');
  const value = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...plausible) },
    { weight: 2, arbitrary: hostileString },
    { weight: 1, arbitrary: loneSurrogate },
    { weight: 1, arbitrary: hostileNumberText },
    { weight: 1, arbitrary: hostileDate },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...plausible), hostileString).map(([a, b]) => a + b) },
  );
  const encoding = fc.oneof({ weight: 12, arbitrary: fc.constant<'component'>('component') }, { weight: 1, arbitrary: fc.constant<'raw'>('raw') });
  return fc.oneof({ weight: 14, arbitrary: fc.record({ value, encoding }) }, { weight: 1, arbitrary: rawBytesArb(fc.constantFrom(...plausible)) });
}

/** A plausible value with bytes that are not UTF-8 inside it, written into the URL as they are. */
function rawBytesArb(plausible: fc.Arbitrary<string>): fc.Arbitrary<UrlValue> {
  return fc
    .tuple(plausible, fc.constantFrom(...RAW_URL_BYTES))
    .map(([text, bytes]): UrlValue => ({ value: Buffer.concat([Buffer.from(text, 'utf8'), Buffer.from(bytes)]).toString('latin1'), encoding: 'bytes' }));
}

/**
 * Paths below a static route (`/dashboard/<path>`), written as they are: the files it serves, and
 * escapes from its root in every spelling a file server or a URL normaliser may decode.
 */
const STATIC_ESCAPES: string[] = [
  '../package.json',
  '..%2fpackage.json',
  '%2e%2e/package.json',
  '%2e%2e%2fpackage.json',
  '.%2e/.%2e/package.json',
  '..%5cpackage.json',
  '%5c..%5cpackage.json',
  '..\\package.json',
  '....//....//package.json',
  'assets/../../package.json',
  '%252e%252e/package.json',
  '%c0%ae%c0%ae/package.json',
  '../../../../../../etc/passwd',
  '/etc/passwd',
  '//etc/passwd',
  'index.html%00',
  'index.html%00.png',
  '%00',
  'index.html/',
  'index.html/..',
  'assets/',
  'assets',
  '.',
  '..',
  '%2e',
  '.env',
  '~',
  'no-such-file.js',
  `${'a'.repeat(300)}.js`,
  '%ff',
  '%ED%A0%80',
  'index.html?x=1',
  'index.html#x',
];

export function staticPathArb(ctx: ValueContext): fc.Arbitrary<UrlValue> {
  const known = ['', ...ctx.staticFiles];
  return fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...known).map((value): UrlValue => ({ value, encoding: 'raw' })) },
    { weight: 4, arbitrary: fc.constantFrom(...STATIC_ESCAPES).map((value): UrlValue => ({ value, encoding: 'raw' })) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...known), hostileString).map(([file, tail]): UrlValue => ({ value: file + tail, encoding: 'component' })) },
    { weight: 1, arbitrary: rawBytesArb(fc.constantFrom(...known)) },
  );
}

/** Percent-encodes every byte outside the unreserved set; a lone surrogate becomes its (invalid) WTF-8 bytes. */
export function percentEncode(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    const next = value.charCodeAt(i + 1);
    let bytes: Buffer;
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      bytes = Buffer.from(value.slice(i, i + 2), 'utf8');
      i++;
    } else if (unit >= 0xd800 && unit <= 0xdfff) {
      bytes = Buffer.from([0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]);
    } else {
      bytes = Buffer.from(value[i], 'utf8');
    }
    for (const byte of bytes) {
      const ch = String.fromCharCode(byte);
      out += /[A-Za-z0-9\-._~]/.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    }
  }
  return out;
}

export function writeUrlValue(v: UrlValue): Buffer {
  if (v.encoding === 'component') return Buffer.from(percentEncode(v.value), 'latin1');
  return Buffer.from(v.value, v.encoding === 'bytes' ? 'latin1' : 'utf8');
}
