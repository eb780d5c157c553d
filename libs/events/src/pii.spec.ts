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
});
