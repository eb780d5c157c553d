import type { Logger } from '../logging/logger';
import { BackgroundWork } from './in-background';
import { RESUME_EVERY_MS } from './queue-contract';

describe('BackgroundWork', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] }));
  afterEach(() => jest.useRealTimers());

  function background(): { work: BackgroundWork; warnings: string[] } {
    const warnings: string[] = [];
    const logger = { warn: (_entry: unknown, message: string) => warnings.push(message) } as unknown as Logger;
    return { work: new BackgroundWork(logger), warnings };
  }

  it('repeats each piece of work every RESUME_EVERY_MS until the modules are destroyed, then never again', async () => {
    const { work } = background();
    let resumes = 0;
    let sweeps = 0;
    work.repeat('resume', async () => void (resumes += 1));
    work.repeat('sweep', async () => void (sweeps += 1));
    await jest.advanceTimersByTimeAsync(3 * RESUME_EVERY_MS);
    expect([resumes, sweeps]).toEqual([3, 3]);

    work.onModuleDestroy();
    await jest.advanceTimersByTimeAsync(5 * RESUME_EVERY_MS);
    expect([resumes, sweeps]).toEqual([3, 3]);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('logs a failed run as a warning and runs again on the next tick', async () => {
    const { work, warnings } = background();
    let runs = 0;
    work.repeat('queue again what Redis lost', async () => {
      runs += 1;
      if (runs === 1) throw new Error('Redis is unreachable');
    });
    await jest.advanceTimersByTimeAsync(2 * RESUME_EVERY_MS);
    expect(runs).toBe(2);
    expect(warnings).toEqual(['could not queue again what Redis lost']);
    work.onModuleDestroy();
  });
});
