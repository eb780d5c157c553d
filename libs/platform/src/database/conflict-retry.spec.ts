import { retriedOnConflict } from './conflict-retry';

/** What TypeORM throws for a failed query: the driver's error, with Postgres' SQLSTATE, inside. */
const queryFailed = (code: string) => Object.assign(new Error(`query failed (${code})`), { driverError: { code } });

describe('retriedOnConflict', () => {
  it('runs a transaction aborted by a deadlock or a serialization failure again', async () => {
    const outcomes = [queryFailed('40P01'), queryFailed('40001')];
    let runs = 0;
    const result = await retriedOnConflict(async () => {
      runs++;
      const failure = outcomes.shift();
      if (failure) throw failure;
      return 'stored';
    });
    expect([result, runs]).toEqual(['stored', 3]);
  });

  it('gives up after the last attempt, with the conflict', async () => {
    let runs = 0;
    await expect(
      retriedOnConflict(async () => {
        runs++;
        throw queryFailed('40P01');
      }, 3),
    ).rejects.toThrow('query failed (40P01)');
    expect(runs).toBe(3);
  });

  it('throws any other error at once', async () => {
    let runs = 0;
    await expect(
      retriedOnConflict(async () => {
        runs++;
        throw queryFailed('23505');
      }),
    ).rejects.toThrow('query failed (23505)');
    await expect(retriedOnConflict(() => Promise.reject(new Error('connection refused')))).rejects.toThrow('connection refused');
    expect(runs).toBe(1);
  });
});
