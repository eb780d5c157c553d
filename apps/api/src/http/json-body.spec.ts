import { MAX_JSON_DEPTH, nulBytePath, scanJson } from './json-body';

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('scanJson', () => {
  it(`allows ${MAX_JSON_DEPTH} levels of nesting and refuses one more, however deep it goes`, () => {
    expect(scanJson(nested(MAX_JSON_DEPTH)).tooDeep).toBe(false);
    expect(scanJson(nested(MAX_JSON_DEPTH + 1)).tooDeep).toBe(true);
    expect(scanJson(`{"a":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_001)}`).tooDeep).toBe(true);
  });

  it('counts brackets outside strings only, escaped quotes included', () => {
    const text = JSON.stringify({ text: '['.repeat(500), quoted: '"[[[[\\"', list: [[1]] });
    expect(scanJson(text)).toEqual({ tooDeep: false, hasNul: false });
  });

  it('finds the \\u0000 escape in keys and values, and not an escaped backslash followed by u0000', () => {
    expect(scanJson(JSON.stringify({ name: 'a\u0000b' })).hasNul).toBe(true);
    expect(scanJson(JSON.stringify({ 'k\u0000': 1 })).hasNul).toBe(true);
    expect(scanJson(JSON.stringify({ name: '\\u0000' })).hasNul).toBe(false);
  });
});

describe('nulBytePath', () => {
  it('names the field holding U+0000, in objects and arrays', () => {
    expect(nulBytePath({ url: 'https://x\u0000.example', events: ['model.retrained'] })).toBe('url');
    expect(nulBytePath({ labels: ['no', 'ye\u0000s'] })).toBe('labels.1');
    expect(nulBytePath({ outer: { 'na\u0000me': 'x' } })).toBe('outer.na\u0000me');
    expect(nulBytePath('\u0000')).toBe('(body)');
    expect(nulBytePath({ name: 'fine', n: 1, none: null })).toBeUndefined();
  });
});
