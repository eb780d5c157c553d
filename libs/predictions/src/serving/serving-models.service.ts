import { hash } from 'node:crypto';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { InferenceSession } from 'onnxruntime-node';
import type { FeatureManifest } from '@foresight/features';
import { type ExplainableModel, explainableModelOf, ModelsService, type ServingVersionRef, type VersionArtifact, type VersionTarget } from '@foresight/models';
import { APP_CONFIG, type AppConfig, AppError, LOGGER, type Logger, SameTurnBatches } from '@foresight/platform';
import { CoalescedRuns } from './coalesced-runs';
import { PredictionMetricsService } from './prediction-metrics.service';
import { SessionLru, type Sized } from './session-lru';

/** A replaced version's session is dropped only after requests that picked it up have had time to finish. */
const RELEASE_DELAY_MS = 30_000;
/**
 * A session's memory, estimated from its model's bytes: ONNX Runtime held about 64 KiB plus 5 to 8
 * times the bytes per session (measured: 51 KiB for a 3.6 KB one-tree model, 205 KiB for 25 KB, 768
 * KiB for 110 KB, 819 KiB for a 163 KB 200-tree model), and the bytes themselves stay for explanations.
 */
const SESSION_OVERHEAD_BYTES = 64 * 1024;
const SESSION_BYTES_PER_MODEL_BYTE = 7;

/** Sessions options: tiny models, one thread each keeps every request on its own core share instead of oversubscribing. */
const SESSION_OPTIONS: InferenceSession.SessionOptions = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' };

/** A version's ONNX Runtime session, held in the LRU while it fits, and the explanation model read off the same bytes. */
interface LoadedSession {
  session: InferenceSession;
  /** Read back from the bytes the first time a prediction is explained (most traffic never asks); null for a version trained before explanations were stored. */
  explainer: () => ExplainableModel | null;
  release(): Promise<void>;
}

/** What a view serves of a version: small, kept while the version serves; its session comes and goes with the LRU. */
interface ServedVersion {
  version: number;
  manifest: FeatureManifest;
  /** Runs the version's session, loaded again if the LRU released it meanwhile. */
  session: Pick<InferenceSession, 'run'>;
  /** The session's runs for serving, coalesced across concurrent requests. */
  runs: CoalescedRuns;
  /** The explanation model of the version's session; called right after a run of it. */
  explainer: () => ExplainableModel | null;
  /** What the version's kind needs beside its graph (an inactivity model's dormant users' rate, a value model's spread); null for `event`. */
  target: VersionTarget | null;
}

export interface ServingModel extends ServingVersionRef, ServedVersion {}

/** An organization's serving models as stored when they were read. */
export interface ServingSet {
  models: ServingModel[];
  /** Changes with anything the models answer: a version served, removed or replaced, a name, a label. */
  key: string;
}

/**
 * Serving's models of every organization. Which versions serve, under which names and labels, is read
 * from Postgres on every call (one small read, shared by the calls of an organization in the same
 * turn of the event loop): a change made through any replica, the worker or the CLI serves from the
 * next request on, on every replica, with no cross-process message that could be lost and no refresh
 * interval to wait for. Their ONNX Runtime sessions are kept in an LRU within SERVING_MODEL_MEMORY_MB:
 * a version whose session was released is loaded again from the registry by the run that needs it.
 */
@Injectable()
export class ServingModelsService implements OnModuleDestroy {
  /** The set each organization's latest call served; none of its versions is retired. */
  private readonly views = new Map<string, ServingSet>();
  /** By version id; shared by every request and organization view. */
  private readonly served = new Map<string, Promise<ServedVersion>>();
  private readonly sessions: SessionLru<LoadedSession>;
  private readonly reads = new SameTurnBatches<string, null, ServingVersionRef[]>(async (organizationId, calls) => {
    const refs = await this.models.servingVersions(organizationId);
    return calls.map(() => refs);
  });

  constructor(
    private readonly models: ModelsService,
    @Inject(APP_CONFIG) config: AppConfig,
    metrics: PredictionMetricsService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.sessions = new SessionLru(config.servingModelMemoryBytes, {
      evicted: () => metrics.sessionEvicted(),
      changed: (figures) => metrics.sessionsHeld(figures),
    });
  }

  /** The organization's serving models as stored now. */
  async forOrganization(organizationId: string): Promise<ServingSet> {
    const refs = await this.reads.add(organizationId, null);
    const key = hash('sha256', JSON.stringify(refs), 'base64url');
    const view = this.views.get(organizationId);
    return view?.key === key ? view : this.build(organizationId, refs, key);
  }

  onModuleDestroy(): void {
    this.sessions.clear();
    this.served.clear();
  }

  /** The set of `refs`, kept as the organization's view; the versions the view it replaces served and this one does not are retired. */
  private async build(organizationId: string, refs: ServingVersionRef[], key: string): Promise<ServingSet> {
    const loads = refs.map((ref) => this.version(organizationId, ref));
    const versions = await Promise.all(loads);
    // A call that read the set earlier may have replaced the view meanwhile and retired a version this
    // one picked up: served again rather than kept in a view past its retirement.
    if (refs.some((ref, i) => this.served.get(ref.versionId) !== loads[i])) return this.build(organizationId, refs, key);
    const set = { key, models: refs.map((ref, i) => ({ ...ref, ...versions[i] })) };
    const previous = this.views.get(organizationId);
    this.views.set(organizationId, set);
    const serving = new Set(refs.map((ref) => ref.versionId));
    for (const old of previous?.models ?? []) if (!serving.has(old.versionId)) this.retire(old.versionId);
    return set;
  }

  private version(organizationId: string, ref: ServingVersionRef): Promise<ServedVersion> {
    let loading = this.served.get(ref.versionId);
    if (!loading) {
      loading = this.serve(organizationId, ref);
      this.served.set(ref.versionId, loading);
      // A failed load is retried by the next call rather than cached.
      loading.catch(() => this.served.delete(ref.versionId));
    }
    return loading;
  }

  /** The version's manifest, and its session loaded into the LRU (it is about to be used). */
  private async serve(organizationId: string, ref: ServingVersionRef): Promise<ServedVersion> {
    const artifact = await this.models.versionArtifact(organizationId, ref.versionId);
    if (!this.sessions.has(ref.versionId)) this.sessions.add(ref.versionId, await this.load(ref, artifact));
    const reload = async () => this.load(ref, await this.models.versionArtifact(organizationId, ref.versionId));
    const session = { run: (feeds: InferenceSession.FeedsType) => this.sessions.use(ref.versionId, reload, ({ session }) => session.run(feeds)) };
    return {
      version: artifact.version,
      manifest: artifact.manifest,
      target: artifact.target,
      session,
      runs: new CoalescedRuns(session, artifact.manifest.names.length),
      explainer: () => {
        const loaded = this.sessions.peek(ref.versionId);
        // Only if the LRU released the session between this request's run and its explanation: far more models were in use than its budget holds.
        if (!loaded) throw new AppError('unavailable', `Model ${ref.modelId} was unloaded under memory pressure (SERVING_MODEL_MEMORY_MB); try again shortly.`);
        return loaded.explainer();
      },
    };
  }

  private async load(ref: ServingVersionRef, artifact: VersionArtifact): Promise<Sized<LoadedSession>> {
    const session = await InferenceSession.create(artifact.onnx, SESSION_OPTIONS);
    this.logger.info({ modelId: ref.modelId, version: artifact.version }, 'model version loaded for serving');
    return {
      value: { session, explainer: once(() => explainableModelOf(artifact.onnx)), release: () => session.release() },
      bytes: sessionBytes(artifact.onnx.byteLength),
    };
  }

  private retire(versionId: string): void {
    this.served.delete(versionId);
    setTimeout(() => {
      // Served again meanwhile (a rollback): its session stays.
      if (!this.served.has(versionId)) this.sessions.delete(versionId);
    }, RELEASE_DELAY_MS).unref();
  }
}

/** The memory a session of a model of `modelBytes` bytes is counted for in the LRU's budget. */
export function sessionBytes(modelBytes: number): number {
  return SESSION_OVERHEAD_BYTES + SESSION_BYTES_PER_MODEL_BYTE * modelBytes;
}

function once<T>(compute: () => T): () => T {
  let computed: { value: T } | undefined;
  return () => (computed ??= { value: compute() }).value;
}
