import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Queue } from 'bullmq';
import { In, Repository } from 'typeorm';
import { ModelsService } from '@foresight/models';
import {
  AUDIENCE_BATCH_USERS,
  type AudienceChange,
  audienceRecomputeJob,
  DomainEventsService,
  invalidRequest,
  type JobPayloads,
  type JOBS,
  newId,
  notFound,
  QUEUES,
  SqlExecutor,
} from '@foresight/platform';
import { ScoringRunsService } from '../scoring/scoring-runs.service';
import { Audience } from './audience.entity';
import type { CreateAudience } from './audience.schema';
import { type AudienceRule, type ValidationQuality, validationQuality } from './audience-rule';
import {
  type AudienceSizeRow,
  CLAIM_COMPUTATION,
  COMPUTE_MEMBERS,
  FORGET_DEPARTED,
  LATEST_SIZES,
  LOCK_AUDIENCE,
  MARK_ANNOUNCED,
  RUN_DEPARTURES,
  RUN_ENTRIES,
  SCORED_SINCE,
  SIZE_HISTORY,
  UNANNOUNCED_RUNS,
} from './audiences.sql';

type Recompute = JobPayloads[typeof JOBS.predictions.recomputeAudiences];

/** Computations kept in an audience's details (newest last). */
const HISTORY_LENGTH = 100;

export interface AudienceComputation {
  /** The bulk scoring run, or the audience's id for its first computation. */
  runId: string;
  size: number;
  entered: number;
  left: number;
  computedAt: Date;
}

export interface AudienceSummary {
  audience: Audience;
  rule: AudienceRule;
  /** The latest computation; null until the first one ran. */
  latest: AudienceComputation | null;
}

export interface AudienceDetails extends AudienceSummary {
  /** What the model's serving version showed on its validation set at the rule's cutoff; null without a serving version or its curves. */
  validation: ValidationQuality | null;
  history: AudienceComputation[];
}

/**
 * Audiences: a model, one of its labels and a rule over the probability of that label. Members are
 * computed in SQL from each scored user's latest logged prediction of the model (scored by the
 * model's latest bulk scoring run, or since), when the audience is made and after each bulk scoring
 * run of its model (a job per run, queued when the run completes); who entered and who left is
 * announced as audience.entered / audience.left in batches of AUDIENCE_BATCH_USERS users, with event
 * ids derived from (audience, run, batch), so a retried job announces nothing twice, and a
 * computation is announced to the end before the next one forgets who left with it.
 */
@Injectable()
export class AudiencesService {
  constructor(
    @InjectRepository(Audience) private readonly audiences: Repository<Audience>,
    private readonly sql: SqlExecutor,
    private readonly models: ModelsService,
    private readonly runs: ScoringRunsService,
    private readonly domainEvents: DomainEventsService,
    @InjectQueue(QUEUES.predictions) private readonly queue: Queue<Recompute>,
  ) {}

  /** 404 for an unknown model or another organization's; 400 for a label the model does not have. Members are computed by a job right after. */
  async create(organizationId: string, input: CreateAudience): Promise<AudienceSummary> {
    const { model } = await this.models.get(organizationId, input.modelId);
    if (!model.labels.includes(input.label)) {
      throw invalidRequest(`label: must be one of the model's labels (${model.labels.join(', ')})`, [{ path: 'label', message: `one of ${model.labels.join(', ')}` }]);
    }
    const audience = await this.audiences.save(
      this.audiences.create({
        organizationId,
        id: newId('aud'),
        name: input.name,
        modelId: model.id,
        label: input.label,
        minConfidence: 'minConfidence' in input.rule ? input.rule.minConfidence : null,
        topPercent: 'topPercent' in input.rule ? input.rule.topPercent : null,
      }),
    );
    const job = audienceRecomputeJob({ organizationId, runId: audience.id, audienceIds: [audience.id] });
    await this.queue.add(job.name, job.data, job.opts);
    return { audience, rule: ruleOf(audience), latest: null };
  }

  async list(organizationId: string): Promise<AudienceSummary[]> {
    const audiences = await this.audiences.find({ where: { organizationId }, order: { createdAt: 'ASC', id: 'ASC' } });
    const latest = new Map((await this.sql.rows(LATEST_SIZES, [organizationId, audiences.map((a) => a.id)])).map((row) => [row.audience_id, computationOf(row)]));
    return audiences.map((audience) => ({ audience, rule: ruleOf(audience), latest: latest.get(audience.id) ?? null }));
  }

  async get(organizationId: string, audienceId: string): Promise<AudienceDetails> {
    const audience = await this.find(organizationId, audienceId);
    const history = (await this.sql.rows(SIZE_HISTORY, [organizationId, audienceId, HISTORY_LENGTH])).map(computationOf).reverse();
    const { model, serving } = await this.models.get(organizationId, audience.modelId);
    const rule = ruleOf(audience);
    const validation = serving ? validationQuality(serving.curves, audience.label === model.labels[1], rule) : null;
    return { audience, rule, latest: history.at(-1) ?? null, validation, history };
  }

  /** 404 unless the audience is the organization's. */
  async find(organizationId: string, audienceId: string): Promise<Audience> {
    const audience = await this.audiences.findOneBy({ organizationId, id: audienceId });
    if (!audience) throw notFound(`audience ${audienceId}`);
    return audience;
  }

  /** The audience, its members and its history (ON DELETE CASCADE). */
  async remove(organizationId: string, audienceId: string): Promise<void> {
    await this.find(organizationId, audienceId);
    await this.audiences.delete({ organizationId, id: audienceId });
  }

  /** The job: each audience computed (once per run: a retry finds its claim) and its changes announced (again on a retry, under the same event ids). */
  async recompute(job: Recompute): Promise<AudienceComputation[]> {
    const { organizationId, runId } = job;
    const audiences = job.audienceIds
      ? await this.audiences.findBy({ organizationId, id: In(job.audienceIds) })
      : await this.audiences.findBy({ organizationId, modelId: In((await this.runs.get(organizationId, runId)).modelIds) });
    const computed: AudienceComputation[] = [];
    for (const audience of audiences) {
      // An earlier computation whose job died before announcing it is announced first: this one forgets its departures.
      await this.announcePending(audience);
      const computation = await this.compute(audience, runId);
      if (computation) computed.push(computation);
      await this.announcePending(audience);
    }
    return computed;
  }

  /** Undefined when the run's computation was made already (or the audience was deleted meanwhile). */
  private async compute(audience: Audience, runId: string): Promise<AudienceComputation | undefined> {
    const key: [string, string] = [audience.organizationId, audience.id];
    return this.sql.transaction(async (tx) => {
      await tx.rows(LOCK_AUDIENCE, key);
      if (!(await tx.first(CLAIM_COMPUTATION, [...key, runId]))) return undefined;
      await tx.affected(FORGET_DEPARTED, key);
      const scored = await tx.first(SCORED_SINCE, [audience.organizationId, audience.modelId]);
      const row = await tx.first(COMPUTE_MEMBERS, [...key, runId, audience.modelId, audience.label, audience.minConfidence, audience.topPercent, scored?.cutoff ?? null]);
      if (!row) return undefined;
      return { runId, size: row.size, entered: row.entered, left: row.left_count, computedAt: new Date() };
    });
  }

  /** Every computation of the audience not announced to the end, oldest first, each marked once all of it was published. */
  private async announcePending(audience: Audience): Promise<void> {
    for (const { run_id: runId } of await this.sql.rows(UNANNOUNCED_RUNS, [audience.organizationId, audience.id])) {
      await this.announce(audience, runId);
      await this.sql.affected(MARK_ANNOUNCED, [audience.organizationId, audience.id, runId]);
    }
  }

  private async announce(audience: Audience, runId: string): Promise<void> {
    const key: [string, string, string] = [audience.organizationId, audience.id, runId];
    for (const [type, statement] of [['audience.entered', RUN_ENTRIES], ['audience.left', RUN_DEPARTURES]] as const) {
      const users = (await this.sql.rows(statement, key)).map((row) => row.user_id);
      for (let batch = 0; batch * AUDIENCE_BATCH_USERS < users.length; batch++) {
        const data: AudienceChange = {
          audienceId: audience.id,
          audience: audience.name,
          modelId: audience.modelId,
          label: audience.label,
          runId,
          batch,
          userIds: users.slice(batch * AUDIENCE_BATCH_USERS, (batch + 1) * AUDIENCE_BATCH_USERS),
        };
        await this.domainEvents.publish(audience.organizationId, type, data, `${audience.id}/${runId}/${batch}`);
      }
    }
  }
}

function ruleOf(audience: Audience): AudienceRule {
  return audience.minConfidence !== null ? { minConfidence: audience.minConfidence } : { topPercent: audience.topPercent as number };
}

function computationOf(row: AudienceSizeRow): AudienceComputation {
  return { runId: row.run_id, size: row.size, entered: row.entered, left: row.left_count, computedAt: row.computed_at };
}
