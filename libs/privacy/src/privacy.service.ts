import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { type CallerUser, type StoredUserId, SuppressionListService, UserIdsService } from '@foresight/events';
import { type ContractJob, contractJob, Encryptor, type JobPayloads, JOBS, newId, notFound, type PersonalDataStore, QUEUES, RedisAvailabilityService } from '@foresight/platform';
import { ErasureRecordsService } from './erasure/erasure-records.service';
import type { ErasedCounts } from './erasure/erasure-records.sql';
import { PersonalDataStoresService } from './stores/personal-data-stores.service';

type SweepErasure = JobPayloads[typeof JOBS.privacy.sweepErasure];

/** An erasure not confirmed this long after it was asked may have lost its sweep job with Redis; queued again, a job Redis still holds is kept as it is (same job id). */
const RESUME_SWEEP_AFTER_SECONDS = 60;
const RESUME_AT_MOST = 100;

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

/**
 * Export and erasure of one user across every personal-data store, under every form its id may be
 * stored in (UserIdsService.storedForms): an organization that switched hashUserIds holds both.
 */
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

  async export(organizationId: string, user: CallerUser): Promise<UserExport> {
    const forms = this.userIds.storedForms(organizationId, user.id);
    const sections = await inTurn(this.stores.all(), async (store) => [store.name, (await inTurn(forms, (form) => store.export(organizationId, form))).flat()] as const);
    if (sections.every(([, rows]) => rows.length === 0)) throw notFound('user');
    return { exportedAt: new Date().toISOString(), events: [], predictions: [], sessions: [], ...Object.fromEntries(sections) };
  }

  /**
   * Erases the user from every store before returning. The sweep job is queued first, so a crash
   * half-way is finished by the worker; the caller's id travels in it only sealed (bound to the
   * erasure id) and leaves Redis when the sweep confirms. It is the id as sent, not a stored form:
   * the sweep needs it to find every form. Without Redis (it holds personal data too, and the
   * sweep) nothing is done and the caller is answered `unavailable`.
   */
  async erase(organizationId: string, user: CallerUser, request: ErasureRequest): Promise<void> {
    this.redis.assertUp('erase the user');
    const stores = this.stores.all();
    const forms = this.userIds.storedForms(organizationId, user.id);
    if ((await countRemaining(stores, organizationId, forms)) === 0) throw notFound('user');
    const erasureId = newId('era');
    const sealedUserId = this.encryptor.encrypt(user.id, sealContext(erasureId));
    await this.records.open(erasureId, organizationId, this.userIds.userHash(organizationId, user.stored), sealedUserId);
    try {
      const sweep = sweepJob({ erasureId, organizationId, sealedUserId });
      await this.redis.within('queue the erasure sweep', () => this.sweeps.add(sweep.name, sweep.data, sweep.opts));
    } catch (error) {
      // No erasure record without the sweep that confirms it.
      await this.records.discard(organizationId, erasureId);
      throw error;
    }
    // Suppress before erasing: nothing of the user is stored between the erasure and the suppression.
    if (request.suppress) await this.suppression.suppress(organizationId, user);
    await this.records.recordPass(organizationId, erasureId, await eraseEverywhere(stores, organizationId, forms), { sweep: false, confirmed: false });
  }

  /**
   * One sweep: erases whatever appeared since (a write in flight, a replica's late flush), then
   * confirms when no store holds anything; otherwise throws, and BullMQ retries with backoff.
   */
  async sweep(job: SweepErasure): Promise<ErasedCounts> {
    // A job queued by an earlier release seals a stored form: its forms include it.
    const forms = this.userIds.storedForms(job.organizationId, this.encryptor.decryptText(job.sealedUserId, sealContext(job.erasureId)));
    const stores = this.stores.all();
    const erased = await eraseEverywhere(stores, job.organizationId, forms);
    const left = await inTurn(stores, async (store) => [store.name, await remainingOf(store, job.organizationId, forms)] as const);
    const holding = left.filter(([, rows]) => rows > 0);
    await this.records.recordPass(job.organizationId, job.erasureId, erased, { sweep: true, confirmed: holding.length === 0 });
    if (holding.length > 0) throw new Error(`erasure ${job.erasureId}: still held by ${holding.map(([name, rows]) => `${name} (${rows})`).join(', ')}`);
    return erased;
  }

  /**
   * Queues again the sweeps of every organization's erasures left unconfirmed: Redis restarted without
   * its data (the job is the only thing that finishes an erasure). Answers how many were looked at.
   */
  async resumeSweeps(): Promise<number> {
    const erasures = await this.records.unconfirmed(RESUME_SWEEP_AFTER_SECONDS, RESUME_AT_MOST);
    await this.sweeps.addBulk(erasures.map(sweepJob));
    return erasures.length;
  }

  /** False when the user was not suppressed. */
  unsuppress(organizationId: string, user: CallerUser): Promise<boolean> {
    return this.suppression.unsuppress(organizationId, user);
  }
}

/** The job id is the erasure id: queued again while Redis holds it, nothing is added. */
function sweepJob(data: SweepErasure): ContractJob<typeof JOBS.privacy.sweepErasure> {
  return contractJob(JOBS.privacy.sweepErasure, data, data.erasureId);
}

function sealContext(erasureId: string): string {
  return `erasure:${erasureId}`;
}

/**
 * `work` on each item, one after the other. A user's stores and forms are a dozen or more queries; run
 * at once, one export or erasure took every connection of the pool (10 by default), and other requests
 * waited for one until they were answered 503 on a loaded machine (the soak's erasures after faults).
 */
async function inTurn<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (const item of items) results.push(await work(item));
  return results;
}

async function countRemaining(stores: readonly PersonalDataStore[], organizationId: string, forms: readonly StoredUserId[]): Promise<number> {
  const counts = await inTurn(stores, (store) => remainingOf(store, organizationId, forms));
  return counts.reduce((sum, n) => sum + n, 0);
}

async function remainingOf(store: PersonalDataStore, organizationId: string, forms: readonly StoredUserId[]): Promise<number> {
  const counts = await inTurn(forms, (form) => store.remaining(organizationId, form));
  return counts.reduce((sum, n) => sum + n, 0);
}

/** Form after form, store after store. */
async function eraseEverywhere(stores: readonly PersonalDataStore[], organizationId: string, forms: readonly StoredUserId[]): Promise<ErasedCounts> {
  const erased: ErasedCounts = {};
  for (const form of forms) {
    const counts = await inTurn(stores, async (store) => [store.name, await store.erase(organizationId, form)] as const);
    for (const [name, rows] of counts) {
      for (const [section, n] of Object.entries(typeof rows === 'number' ? { [name]: rows } : rows)) if (n > 0) erased[section] = (erased[section] ?? 0) + n;
    }
  }
  return erased;
}
