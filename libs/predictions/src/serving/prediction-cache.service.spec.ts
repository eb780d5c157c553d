import { PredictionCacheService } from './prediction-cache.service';

const answer = [{ model: 'checkout_7d', label: 'likely', confidence: 0.8, modelId: 'mdl_a', version: 1 }];

describe('PredictionCacheService', () => {
  it('answers only for the same fingerprint, within five minutes', () => {
    const cache = new PredictionCacheService();
    cache.set('org_a', 'user-1', 'f1', answer, 0);
    expect(cache.get('org_a', 'user-1', 'f1', 1_000)).toBe(answer);
    expect(cache.get('org_a', 'user-1', 'f2', 1_000)).toBeUndefined();
    expect(cache.get('org_b', 'user-1', 'f1', 1_000)).toBeUndefined();
    expect(cache.get('org_a', 'user-1', 'f1', 300_000)).toBeUndefined();
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
