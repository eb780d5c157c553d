import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { contractJob, type JobPayloads, JOBS, QUEUES } from '@foresight/platform';
import { EventPayloadCipherService } from './event-payload-cipher.service';

type Reencrypt = JobPayloads[typeof JOBS.events.reencrypt];

/** Starts re-encryption of stored events under the current key (`cli keys rotate`); the worker does the work. */
@Injectable()
export class KeyRotationService {
  constructor(
    @InjectQueue(QUEUES.events) private readonly queue: Queue<Reencrypt>,
    private readonly cipher: EventPayloadCipherService,
  ) {}

  async start(): Promise<{ jobId: string; currentKeyId: string }> {
    const reencrypt = contractJob(JOBS.events.reencrypt, { requestedAt: new Date().toISOString() });
    const job = await this.queue.add(reencrypt.name, reencrypt.data, reencrypt.opts);
    return { jobId: String(job.id), currentKeyId: this.cipher.keyId };
  }
}
