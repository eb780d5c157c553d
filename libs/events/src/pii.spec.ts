import { looksLikePersonalData, personalDataKeys } from './pii';

describe('personal data in names', () => {
  it.each(['jane@example.com', 'signup jane.doe@corp.co.uk', '+44 20 7946 0958', '0612345678', '(555) 123-4567'])('flags %s', (name) => {
    expect(looksLikePersonalData(name)).toBe(true);
  });

  it.each(['checkout_start', 'plan', 'experiment:42', 'screen_view', 'step_2024_11', 'v1.2.3', 'dwellMs'])('accepts %s', (name) => {
    expect(looksLikePersonalData(name)).toBe(false);
  });

  it('finds offending keys at any depth, not values', () => {
    expect(personalDataKeys({ plan: 'jane@example.com', nested: { 'jane@example.com': 1 }, list: [{ '+1 555 010 9999': true }] })).toEqual([
      'nested.jane@example.com',
      'list.0.+1 555 010 9999',
    ]);
  });

  it('answers as before on strings crafted against the patterns (linear-time patterns)', () => {
    const runs = (n: number) => 'a'.repeat(n);
    expect(looksLikePersonalData(`${runs(15_000)}@${'b'.repeat(15_000)}`)).toBe(false);
    expect(looksLikePersonalData(`${runs(15_000)}@${'b'.repeat(15_000)}.cc`)).toBe(true);
    expect(looksLikePersonalData('a@'.repeat(15_000))).toBe(false);
    expect(looksLikePersonalData(`${'1 '.repeat(6)}x `.repeat(2_000))).toBe(false);
    expect(looksLikePersonalData(`1${' '.repeat(20_000)}2 3 4 5 6 7 8`)).toBe(true);
    for (const [name, expected] of [['a@b.cc', true], ['a@b.c', false], ['@b.cc', false], ['a@.cc', false], ['a @b.cc', false]] as const) {
      expect(looksLikePersonalData(name)).toBe(expected);
    }
  });
});
