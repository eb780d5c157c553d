import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { InferenceSession } from 'onnxruntime-node';
import type { FeatureManifest } from '@foresight/features';
import { ModelsService, type ServingVersionRef } from '@foresight/models';
import { LOGGER, type Logger } from '@foresight/platform';
import { CoalescedRuns } from './coalesced-runs';

/**
 * How stale a process's view of the serving versions may get. Every API process re-reads the
 * organization's serving versions this often (on the first request past it), so a promotion
 * serves everywhere within a few seconds, with no cross-process message that could be lost.
 */
export const SERVING_REFRESH_MS = 2_000;
/** A replaced session is released only after requests that picked it up have finished. */
const RELEASE_DELAY_MS = 30_000;

export interface ServingModel extends ServingVersionRef {
  version: number;
  manifest: FeatureManifest;
  session: InferenceSession;
  /** The session's runs for serving, coalesced across concurrent requests. */
  runs: CoalescedRuns;
}

interface OrganizationView {
  checkedAt: number;
  models: ServingModel[];
}

/** ONNX Runtime sessions of every organization's serving versions, kept in memory and swapped on promotion. */
@Injectable()
export class ServingModelsService implements OnModuleDestroy {
  private readonly views = new Map<string, OrganizationView>();
  private readonly refreshing = new Map<string, Promise<ServingModel[]>>();
  /** By version id; a version's session is shared by every request and organization view. */
  private readonly loaded = new Map<string, Promise<ServingModel>>();

  constructor(
    private readonly models: ModelsService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Past the refresh interval, requests keep the current view while one refresh runs beside them. */
  async forOrganization(organizationId: string): Promise<ServingModel[]> {
    const now = Date.now();
    const view = this.views.get(organizationId);
    if (!view) return this.refreshOnce(organizationId, now);
    if (now - view.checkedAt >= SERVING_REFRESH_MS) {
      this.refreshOnce(organizationId, now).catch((error: unknown) => this.logger.warn({ err: error, organizationId }, 'serving versions refresh failed'));
    }
    return view.models;
  }

  /** The organization's serving versions as stored now (bulk scoring after a promotion must not score with the one it replaced). */
  current(organizationId: string): Promise<ServingModel[]> {
    return this.refreshOnce(organizationId, Date.now());
  }

  async onModuleDestroy(): Promise<void> {
    const sessions = await Promise.allSettled(this.loaded.values());
    await Promise.all(sessions.flatMap((s) => (s.status === 'fulfilled' ? [s.value.session.release()] : [])));
    this.loaded.clear();
  }

  private refreshOnce(organizationId: string, now: number): Promise<ServingModel[]> {
    let refresh = this.refreshing.get(organizationId);
    if (!refresh) {
      refresh = this.refresh(organizationId, now).finally(() => this.refreshing.delete(organizationId));
      this.refreshing.set(organizationId, refresh);
    }
    return refresh;
  }

  private async refresh(organizationId: string, now: number): Promise<ServingModel[]> {
    const refs = await this.models.servingVersions(organizationId);
    const models = await Promise.all(refs.map((ref) => this.session(organizationId, ref)));
    const previous = this.views.get(organizationId)?.models ?? [];
    this.views.set(organizationId, { checkedAt: now, models });
    const current = new Set(models.map((m) => m.versionId));
    for (const old of previous) if (!current.has(old.versionId)) this.retire(old.versionId);
    return models;
  }

  private session(organizationId: string, ref: ServingVersionRef): Promise<ServingModel> {
    let loading = this.loaded.get(ref.versionId);
    if (!loading) {
      loading = this.load(organizationId, ref);
      this.loaded.set(ref.versionId, loading);
      // A failed load is retried on the next refresh rather than cached.
      loading.catch(() => this.loaded.delete(ref.versionId));
    }
    return loading;
  }

  private async load(organizationId: string, ref: ServingVersionRef): Promise<ServingModel> {
    const artifact = await this.models.versionArtifact(organizationId, ref.versionId);
    // Tiny models: one thread each keeps every request on its own core share instead of oversubscribing.
    const session = await InferenceSession.create(artifact.onnx, {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
    this.logger.info({ modelId: ref.modelId, version: artifact.version }, 'model version loaded for serving');
    return { ...ref, version: artifact.version, manifest: artifact.manifest, session, runs: new CoalescedRuns(session, artifact.manifest.names.length) };
  }

  private retire(versionId: string): void {
    const loading = this.loaded.get(versionId);
    this.loaded.delete(versionId);
    setTimeout(() => void loading?.then((m) => m.session.release()).catch(() => undefined), RELEASE_DELAY_MS).unref();
  }
}
