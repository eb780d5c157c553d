import { hash } from 'node:crypto';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { InferenceSession } from 'onnxruntime-node';
import type { FeatureManifest } from '@foresight/features';
import { type ExplainableModel, explainableModelOf, ModelsService, type ServingVersionRef } from '@foresight/models';
import { LOGGER, type Logger, SameTurnBatches } from '@foresight/platform';
import { CoalescedRuns } from './coalesced-runs';

/** A replaced session is released only after requests that picked it up have finished. */
const RELEASE_DELAY_MS = 30_000;

/** A version's ONNX Runtime session and what it reads, shared by every request that serves the version. */
interface LoadedVersion {
  version: number;
  manifest: FeatureManifest;
  session: InferenceSession;
  /** The session's runs for serving, coalesced across concurrent requests. */
  runs: CoalescedRuns;
  /**
   * The graph's model, read back from its bytes the first time a prediction of it is explained (most
   * traffic never asks); null for a version trained before explanations were stored.
   */
  explainer: () => ExplainableModel | null;
}

export interface ServingModel extends ServingVersionRef, LoadedVersion {}

/** An organization's serving models as stored when they were read. */
export interface ServingSet {
  models: ServingModel[];
  /** Changes with anything the models answer: a version served, removed or replaced, a name, a label. */
  key: string;
}

/**
 * ONNX Runtime sessions of every organization's serving versions, kept in memory. Which versions
 * serve, under which names and labels, is read from Postgres on every call (one small read, shared by
 * the calls of an organization in the same turn of the event loop): a change made through any
 * replica, the worker or the CLI serves from the next request on, on every replica, with no
 * cross-process message that could be lost and no refresh interval to wait for.
 */
@Injectable()
export class ServingModelsService implements OnModuleDestroy {
  /** The set each organization's latest call served, with the sessions it holds; none of them is retired. */
  private readonly views = new Map<string, ServingSet>();
  /** By version id; a version's session is shared by every request and organization view. */
  private readonly loaded = new Map<string, Promise<LoadedVersion>>();
  private readonly reads = new SameTurnBatches<string, null, ServingVersionRef[]>(async (organizationId, calls) => {
    const refs = await this.models.servingVersions(organizationId);
    return calls.map(() => refs);
  });

  constructor(
    private readonly models: ModelsService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** The organization's serving models as stored now. */
  async forOrganization(organizationId: string): Promise<ServingSet> {
    const refs = await this.reads.add(organizationId, null);
    const key = hash('sha256', JSON.stringify(refs), 'base64url');
    const view = this.views.get(organizationId);
    return view?.key === key ? view : this.build(organizationId, refs, key);
  }

  async onModuleDestroy(): Promise<void> {
    const sessions = await Promise.allSettled(this.loaded.values());
    await Promise.all(sessions.flatMap((s) => (s.status === 'fulfilled' ? [s.value.session.release()] : [])));
    this.loaded.clear();
  }

  /** The set of `refs`, kept as the organization's view; the versions the view it replaces served and this one does not are retired. */
  private async build(organizationId: string, refs: ServingVersionRef[], key: string): Promise<ServingSet> {
    const loads = refs.map((ref) => this.session(organizationId, ref));
    const versions = await Promise.all(loads);
    // A call that read the set earlier may have replaced the view meanwhile and retired a session this
    // one picked up: loaded again rather than kept in a view past its release.
    if (refs.some((ref, i) => this.loaded.get(ref.versionId) !== loads[i])) return this.build(organizationId, refs, key);
    const set = { key, models: refs.map((ref, i) => ({ ...ref, ...versions[i] })) };
    const previous = this.views.get(organizationId);
    this.views.set(organizationId, set);
    const serving = new Set(refs.map((ref) => ref.versionId));
    for (const old of previous?.models ?? []) if (!serving.has(old.versionId)) this.retire(old.versionId);
    return set;
  }

  private session(organizationId: string, ref: ServingVersionRef): Promise<LoadedVersion> {
    let loading = this.loaded.get(ref.versionId);
    if (!loading) {
      loading = this.load(organizationId, ref);
      this.loaded.set(ref.versionId, loading);
      // A failed load is retried by the next call rather than cached.
      loading.catch(() => this.loaded.delete(ref.versionId));
    }
    return loading;
  }

  private async load(organizationId: string, ref: ServingVersionRef): Promise<LoadedVersion> {
    const artifact = await this.models.versionArtifact(organizationId, ref.versionId);
    // Tiny models: one thread each keeps every request on its own core share instead of oversubscribing.
    const session = await InferenceSession.create(artifact.onnx, {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
    this.logger.info({ modelId: ref.modelId, version: artifact.version }, 'model version loaded for serving');
    return {
      version: artifact.version,
      manifest: artifact.manifest,
      session,
      runs: new CoalescedRuns(session, artifact.manifest.names.length),
      explainer: once(() => explainableModelOf(artifact.onnx)),
    };
  }

  private retire(versionId: string): void {
    const loading = this.loaded.get(versionId);
    this.loaded.delete(versionId);
    setTimeout(() => void loading?.then((m) => m.session.release()).catch(() => undefined), RELEASE_DELAY_MS).unref();
  }
}

function once<T>(compute: () => T): () => T {
  let computed: { value: T } | undefined;
  return () => (computed ??= { value: compute() }).value;
}
