import type { MinimalJob } from 'bullmq';
import { ConfigError, loadConfig, WEBHOOK_DELIVERY_BACKOFF } from '@foresight/platform';
import { scheduledBackoff } from './delivery/webhook-delivery.processor';

const external = { DATABASE_URL: 'postgres://u:p@db:5432/foresight', TOKEN_PEPPER: 'p'.repeat(32), ENCRYPTION_KEY: 'a'.repeat(64) };

describe('webhook settings (WEBHOOK_* variables)', () => {
  it('default to about a day of retries, a 10 s timeout, no private networks and disabling after 5 days', () => {
    const { webhooks } = loadConfig(external);
    expect(webhooks).toEqual({
      retryScheduleMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      timeoutMs: 10_000,
      allowedNetworks: [],
      disableAfterMs: 5 * 86_400_000,
    });
    const total = webhooks.retryScheduleMs.reduce((sum, delay) => sum + delay, 0);
    expect(total / 3_600_000).toBeGreaterThan(24);
    expect(total / 3_600_000).toBeLessThan(30);
  });

  it('parse schedules and CIDR lists', () => {
    const { webhooks } = loadConfig({ ...external, WEBHOOK_RETRY_SCHEDULE: '1s, 500ms,1m', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8, fd00::/8', WEBHOOK_DISABLE_AFTER: '12h' });
    expect(webhooks.retryScheduleMs).toEqual([1_000, 500, 60_000]);
    expect(webhooks.allowedNetworks).toEqual([
      { network: '127.0.0.0', prefix: 8, type: 'ipv4' },
      { network: 'fd00::', prefix: 8, type: 'ipv6' },
    ]);
    expect(webhooks.disableAfterMs).toBe(12 * 3_600_000);
  });

  it('name each bad entry', () => {
    try {
      loadConfig({ ...external, WEBHOOK_RETRY_SCHEDULE: '5s,soon', WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/33', WEBHOOK_TIMEOUT_MS: '0' });
      throw new Error('loadConfig accepted bad webhook settings');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems.join('\n');
      for (const name of ['WEBHOOK_RETRY_SCHEDULE.1', 'WEBHOOK_ALLOWED_NETWORKS.0', 'WEBHOOK_TIMEOUT_MS']) expect(problems).toContain(name);
    }
  });
});

describe('scheduledBackoff', () => {
  const job = { data: { deliveryId: 'dlv_x', webhookId: 'whk_x', retryDelaysMs: [5_000, 300_000] } } as unknown as MinimalJob;

  it("waits the job's scheduled delay after each failed attempt, and stops after the schedule", () => {
    const backoff = (attemptsMade: number) => scheduledBackoff(attemptsMade, WEBHOOK_DELIVERY_BACKOFF, undefined, job);
    expect([backoff(1), backoff(2), backoff(3)]).toEqual([5_000, 300_000, -1]);
    expect(scheduledBackoff(1, 'other', undefined, job)).toBe(-1);
  });
});
