import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { type StoredUserId, SuppressionListService, UserIdsService } from '@foresight/events';
import { contractJob, Encryptor, type JobPayloads, JOBS, notFound, type PersonalDataStore, QUEUES, RedisAvailabilityService } from '@foresight/platform';
import { ErasureRecordsService } from './erasure/erasure-records.service';
import type { ErasedCounts } from './erasure/erasure-records.sql';
import { PersonalDataStoresService } from './stores/personal-data-stores.service';

type SweepErasure = JobPayloads[typeof JOBS.privacy.sweepErasure];

/** GET /v1/users/export without the caller's id: every store's rows about the user, each under the store's name. */
export interface UserExport {
  exportedAt: string;
  events: unknown[];
  predictions: unknown[];
  sessions: unknown[];
  [store: string]: unknown;
}

export interface ErasureRequest {
  /** Also drop the user's future events at ingestion. */
  suppress: boolean;
}

/** Export and erasure of one user, named by its stored id, across every personal-data store. */
@Injectable()
export class PrivacyService {
  constructor(
    private readonly stores: PersonalDataStoresService,
    private readonly userIds: UserIdsService,
    private readonly records: ErasureRecordsService,
    private readonly suppression: SuppressionListService,
    private readonly encryptor: Encryptor,
    @InjectQueue(QUEUES.privacy) private readonly sweeps: Queue<SweepErasure>,
    private readonly redis: RedisAvailabilityService,
  ) {}

  async export(organizationId: string, userId: StoredUserId): Promise<UserExport> {
    const sections = await Promise.all(this.stores.all().map(async (store) => [store.name, await store.export(organizationId, userId)] as const));
    if (sections.every(([, rows]) => rows.length === 0)) throw notFound('user');
    return { exportedAt: new Date().toISOString(), events: [], predictions: [], sessions: [], ...Object.fromEntries(sections) };
  }

  /**
   * Erases the user from every store before returning. The sweep job is queued first, so a crash
   * half-way is finished by the worker; the id travels in it only sealed (bound to the erasure id)
   * and leaves Redis when the sweep confirms. Without Redis (it holds personal data too, and the
   * sweep) nothing is done and the caller is answered `unavailable`.
   */
  async erase(organizationId: string, userId: StoredUserId, request: ErasureRequest): Promise<void> {
    this.redis.assertUp('erase the user');
    const stores = this.stores.all();
    if ((await countRemaining(stores, organizationId, userId)) === 0) throw notFound('user');
    const erasureId = await this.records.open(organizationId, this.userIds.userHash(organizationId, userId));
    try {
      const sweep = contractJob(JOBS.privacy.sweepErasure, { erasureId, organizationId, sealedUserId: this.encryptor.encrypt(userId, sealContext(erasureId)) }, erasureId);
      await this.redis.within('queue the erasure sweep', () => this.sweeps.add(sweep.name, sweep.data, sweep.opts));
    } catch (error) {
      // No erasure record without the sweep that confirms it.
      await this.records.discard(erasureId);
      throw error;
    }
    // Suppress before erasing: nothing of the user is stored between the erasure and the suppression.
    if (request.suppress) await this.suppression.suppress(organizationId, userId);
    await this.records.recordPass(erasureId, await eraseEverywhere(stores, organizationId, userId), { sweep: false, confirmed: false });
  }

  /**
   * One sweep: erases whatever appeared since (a write in flight, a replica's late flush), then
   * confirms when no store holds anything; otherwise throws, and BullMQ retries with backoff.
   */
  async sweep(job: SweepErasure): Promise<ErasedCounts> {
    const userId = this.encryptor.decryptText(job.sealedUserId, sealContext(job.erasureId));
    const stores = this.stores.all();
    const erased = await eraseEverywhere(stores, job.organizationId, userId);
    const left = await Promise.all(stores.map(async (store) => [store.name, await store.remaining(job.organizationId, userId)] as const));
    const holding = left.filter(([, rows]) => rows > 0);
    await this.records.recordPass(job.erasureId, erased, { sweep: true, confirmed: holding.length === 0 });
    if (holding.length > 0) throw new Error(`erasure ${job.erasureId}: still held by ${holding.map(([name, rows]) => `${name} (${rows})`).join(', ')}`);
    return erased;
  }

  /** False when the user was not suppressed. */
  unsuppress(organizationId: string, userId: StoredUserId): Promise<boolean> {
    return this.suppression.unsuppress(organizationId, userId);
  }
}

function sealContext(erasureId: string): string {
  return `erasure:${erasureId}`;
}

async function countRemaining(stores: readonly PersonalDataStore[], organizationId: string, userId: string): Promise<number> {
  const counts = await Promise.all(stores.map((store) => store.remaining(organizationId, userId)));
  return counts.reduce((sum, n) => sum + n, 0);
}

async function eraseEverywhere(stores: readonly PersonalDataStore[], organizationId: string, userId: string): Promise<ErasedCounts> {
  const counts = await Promise.all(stores.map(async (store) => [store.name, await store.erase(organizationId, userId)] as const));
  return Object.fromEntries(counts.filter(([, n]) => n > 0));
}
