import type { Redis } from 'ioredis';
import { AppError } from '../errors/app-error';
import { RedisAvailabilityService } from './redis-availability.service';

describe('RedisAvailabilityService', () => {
  const at = (status: string) => new RedisAvailabilityService({ status } as Redis);

  it('refuses at once, without running the step, while Redis is down', async () => {
    const step = jest.fn(async () => 'queued');
    await expect(at('reconnecting').within('queue the training run', step)).rejects.toMatchObject({ code: 'unavailable', message: expect.stringContaining('queue the training run') });
    expect(step).not.toHaveBeenCalled();
    expect(() => at('close').assertUp('erase the user')).toThrow(AppError);
  });

  it('answers unavailable when a step overruns its deadline (BullMQ holds commands while disconnected)', async () => {
    const never = new Promise<never>(() => undefined);
    await expect(at('ready').within('queue the retry', () => never, 20)).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('passes results through, turns connection errors into unavailable, and leaves other errors alone', async () => {
    expect(await at('ready').within('x', async () => 42)).toBe(42);
    await expect(at('ready').within('x', async () => Promise.reject(new Error('Connection is closed.')))).rejects.toMatchObject({ code: 'unavailable' });
    await expect(at('ready').within('x', async () => Promise.reject(new TypeError('a bug')))).rejects.toBeInstanceOf(TypeError);
  });
});
