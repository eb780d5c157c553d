import { MAX_NUMERIC_PROPERTIES, MAX_STRING_PROPERTIES, MAX_STRING_PROPERTY_LENGTH, numericProperties, stringProperties } from './event-row';

describe('numeric properties kept in clear', () => {
  it('keeps the finite top-level numbers, not strings, nested values or the signals that have their own columns', () => {
    expect(
      numericProperties({ items: 3, amount: 19.9, plan: 'pro', price: '12', nested: { total: 5 }, depth: 0.5, dwellMs: 800, hesitationMs: 40, zero: 0, negative: -2 }),
    ).toEqual({ items: 3, amount: 19.9, zero: 0, negative: -2 });
  });

  it('answers null for an event without any', () => {
    expect(numericProperties({})).toBeNull();
    expect(numericProperties({ screen: 'Home', dwellMs: 100 })).toBeNull();
  });

  it(`keeps at most ${MAX_NUMERIC_PROPERTIES}, the first ones sent`, () => {
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i]));
    const kept = numericProperties(many) as Record<string, number>;
    expect(Object.keys(kept)).toEqual(Array.from({ length: MAX_NUMERIC_PROPERTIES }, (_, i) => `k${i}`));
  });

  it('leaves a key that is not Unicode text (an unpaired surrogate, which jsonb refuses) sealed only', () => {
    expect(numericProperties({ 'bad\uD800': 1, '\uDC00x': 2, 'emoji \uD83D\uDE00': 3 })).toEqual({ 'emoji \uD83D\uDE00': 3 });
  });

  it('stores a "__proto__" key as data, not as a prototype', () => {
    const parsed = JSON.parse('{"__proto__": 4, "items": 1}') as Record<string, unknown>;
    expect(JSON.parse(JSON.stringify(numericProperties(parsed)))).toEqual(JSON.parse('{"__proto__": 4, "items": 1}'));
  });
});

describe('string properties kept in clear', () => {
  it('keeps short top-level strings, not free text, personal data, the screen, numbers or nested values', () => {
    expect(
      stringProperties({
        plan: 'pro',
        reason: 'too expensive',
        note: 'x'.repeat(MAX_STRING_PROPERTY_LENGTH + 1),
        multiline: 'a\nb',
        contact: 'jane@example.com',
        phone: '+33 6 12 34 56 78',
        screen: 'Billing',
        url: 'https://example.com/pricing',
        empty: '',
        items: 3,
        nested: { plan: 'free' },
        broken: 'bad\uD800',
      }),
    ).toEqual({ plan: 'pro', reason: 'too expensive' });
    expect(stringProperties({ items: 3 })).toBeNull();
  });

  it(`keeps at most ${MAX_STRING_PROPERTIES}, the first ones sent`, () => {
    const many = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, `v${i}`]));
    expect(Object.keys(stringProperties(many) as Record<string, string>)).toEqual(Array.from({ length: MAX_STRING_PROPERTIES }, (_, i) => `k${i}`));
  });
});
