import { PredictionCacheService } from './prediction-cache.service';

const answer = [{ model: 'checkout_7d', label: 'likely', confidence: 0.8, modelId: 'mdl_a', version: 1 }];

describe('PredictionCacheService', () => {
  it('answers only for the same fingerprint, within five minutes', () => {
    const cache = new PredictionCacheService();
    cache.set('org_a', 'user-1', 'f1', answer, 0);
    expect(cache.get('org_a', 'user-1', 'f1', false, 1_000)).toEqual(answer);
    expect(cache.get('org_a', 'user-1', 'f2', false, 1_000)).toBeUndefined();
    expect(cache.get('org_b', 'user-1', 'f1', false, 1_000)).toBeUndefined();
    expect(cache.get('org_a', 'user-1', 'f1', false, 300_000)).toBeUndefined();
  });

  it('never mixes explained and unexplained answers', () => {
    const cache = new PredictionCacheService();
    const explanation = { base: -1, contributions: [{ feature: 'events_7d', label: 'events, last 7 days', value: 3, contribution: 0.5 }] };
    const explained = [{ ...answer[0], explanation }, { ...answer[0], model: 'old_model', explanation: null }];
    cache.set('org_a', 'user-1', 'f1', answer);
    expect(cache.get('org_a', 'user-1', 'f1', true)).toBeUndefined();
    cache.set('org_a', 'user-1', 'f1', explained);
    expect(cache.get('org_a', 'user-1', 'f1', true)).toEqual(explained);
    expect(cache.get('org_a', 'user-1', 'f1', false)).toEqual([answer[0], { ...answer[0], model: 'old_model' }]);
    expect(cache.get('org_a', 'user-1', 'f1', false)?.some((prediction) => 'explanation' in prediction)).toBe(false);
  });

  it('forgets a user on request', () => {
    const cache = new PredictionCacheService();
    cache.set('org_a', 'user-1', 'f1', answer);
    expect(cache.has('org_a', 'user-1')).toBe(true);
    cache.forget('org_a', 'user-1');
    expect(cache.has('org_a', 'user-1')).toBe(false);
  });

  it('evicts the least recently stored user beyond 50,000', () => {
    const cache = new PredictionCacheService();
    for (let i = 0; i <= 50_000; i++) cache.set('org_a', `user-${i}`, 'f', answer);
    expect(cache.has('org_a', 'user-0')).toBe(false);
    expect(cache.has('org_a', 'user-1')).toBe(true);
    expect(cache.has('org_a', 'user-50000')).toBe(true);
  });
});
