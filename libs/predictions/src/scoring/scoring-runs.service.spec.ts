import { USER_HASHES } from '@foresight/events';
import { shardCount, shardRanges } from './scoring-runs.service';

describe('a bulk scoring run cut into shards', () => {
  const scoring = { chunkUsers: 4000, shards: 64, shardUsers: 1000, schedule: '13 4 * * *' };

  it('gets one shard per SCORING_SHARD_USERS users of the organization, at least one and at most SCORING_SHARDS', () => {
    expect([0, 1, 999, 1000, 1001, 10_000, 50_000, 63_001, 64_000, 1_000_000].map((users) => shardCount(users, scoring))).toEqual([
      1, 1, 1, 1, 2, 10, 50, 64, 64, 64,
    ]);
    expect(shardCount(50_000, { ...scoring, shards: 16 })).toBe(16);
  });

  it('covers every user id hash once, in ranges of nearly equal width', () => {
    for (const shards of [1, 3, 50, 64]) {
      const { hashFrom, hashTo } = shardRanges(shards);
      expect(hashFrom[0]).toBe(USER_HASHES.hashFrom);
      expect(hashTo[shards - 1]).toBe(USER_HASHES.hashTo);
      for (let k = 1; k < shards; k++) expect(hashFrom[k]).toBe(hashTo[k - 1] + 1);
      const widths = hashFrom.map((from, k) => hashTo[k] - from + 1);
      expect(Math.max(...widths) - Math.min(...widths)).toBeLessThanOrEqual(1);
    }
  });
});
