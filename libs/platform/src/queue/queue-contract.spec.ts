import { type Job, UnrecoverableError } from 'bullmq';
import { contractJob, dispatchJob, isFinalFailure, type JobHandlers, JOBS, WEBHOOK_DELIVERY_BACKOFF } from './queue-contract';

describe('the queue contract', () => {
  it("gives a job the contract's options for its payload, and the producer's job id", () => {
    expect(contractJob(JOBS.webhooks.deliver, { deliveryId: 'dlv_1', webhookId: 'wh_1', organizationId: 'org_1', retryDelaysMs: [1000, 5000] }, 'dlv_1')).toEqual({
      name: JOBS.webhooks.deliver,
      data: { deliveryId: 'dlv_1', webhookId: 'wh_1', organizationId: 'org_1', retryDelaysMs: [1000, 5000] },
      opts: { attempts: 3, backoff: { type: WEBHOOK_DELIVERY_BACKOFF }, jobId: 'dlv_1' },
    });
    // A job without options of its own keeps the queue's defaults.
    expect(contractJob(JOBS.events.reencrypt, { requestedAt: '2026-01-01T00:00:00.000Z' }).opts).toEqual({});
  });

  it('routes a job to the handler of its name and refuses names outside the queue', async () => {
    const seen: string[] = [];
    const handlers: JobHandlers<'privacy', string> = {
      [JOBS.privacy.sweepErasure]: async (job) => job.data.erasureId,
      [JOBS.privacy.retention]: async (_job, token) => {
        seen.push(token ?? 'no token');
        return 'retention';
      },
    };
    const job = (name: string, data: unknown = {}) => ({ name, data }) as Job;
    expect(await dispatchJob('privacy', handlers, job(JOBS.privacy.sweepErasure, { erasureId: 'era_1' }))).toBe('era_1');
    expect(await dispatchJob('privacy', handlers, job(JOBS.privacy.retention), 'lock-1')).toBe('retention');
    expect(seen).toEqual(['lock-1']);
    expect(() => dispatchJob('privacy', handlers, job(JOBS.events.reencrypt))).toThrow('unknown job events.reencrypt on privacy');
    expect(() => dispatchJob('privacy', handlers, job('toString'))).toThrow('unknown job toString on privacy');
  });

  it('takes a failure for the last when the attempts are used up, or when BullMQ failed the job for good (stalled too often)', () => {
    const job = (attemptsMade: number) => ({ attemptsMade, opts: { attempts: 5 } }) as Job;
    expect(isFinalFailure(job(1), new Error('database went away'))).toBe(false);
    expect(isFinalFailure(job(5), new Error('database went away'))).toBe(true);
    // What BullMQ's worker fails a job with once it stalled more often than maxStalledCount, attempts left or not.
    expect(isFinalFailure(job(1), new UnrecoverableError('job stalled more than allowable limit'))).toBe(true);
  });
});
