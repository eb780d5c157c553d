import { InferenceSession } from 'onnxruntime-node';
import { Registry } from 'prom-client';
import type { ModelsService, ServingVersionRef, VersionArtifact } from '@foresight/models';
import type { AppConfig, Logger } from '@foresight/platform';
import { PredictionMetricsService } from './prediction-metrics.service';
import { ServingModelsService, sessionBytes } from './serving-models.service';

const ORG = 'org_1';
const ref = (versionId: string, name = `model_${versionId}`): ServingVersionRef => ({ modelId: `mdl_${versionId}`, name, labels: ['no', 'yes'], versionId });

/**
 * The registry as serving reads it: each call of servingVersions answers the next stored state;
 * a version's artifact comes back when the test lets it (`artifactOf`), at once unless held.
 */
function registry(states: ServingVersionRef[][]) {
  const held = new Map<string, () => void>();
  const models = {
    servingVersions: jest.fn(async () => states.shift() ?? []),
    versionArtifact: jest.fn(async (_: string, versionId: string): Promise<VersionArtifact> => {
      if (versionId.startsWith('held')) await new Promise<void>((resolve) => held.set(versionId, resolve));
      return { version: 1, manifest: { names: ['f'] } as VersionArtifact['manifest'], onnx: Buffer.from(versionId), target: null };
    }),
  };
  return { models: models as unknown as ModelsService, release: (versionId: string) => held.get(versionId)?.() };
}

/**
 * Every session ONNX Runtime "created", by the version whose bytes it was created from. A run answers
 * the version id at once, or when the test lets it (`finish`) if `holdRuns`.
 */
function fakeSessions({ holdRuns = false } = {}) {
  const created: Array<{ versionId: string; release: jest.Mock; run: jest.Mock; finish: () => void }> = [];
  jest.spyOn(InferenceSession, 'create').mockImplementation(async (bytes: Uint8Array) => {
    const versionId = Buffer.from(bytes).toString();
    const held: Array<() => void> = [];
    const session = {
      versionId,
      release: jest.fn(async () => undefined),
      run: jest.fn(() => (holdRuns ? new Promise((resolve) => held.push(() => resolve({ versionId }))) : Promise.resolve({ versionId }))),
      finish: () => held.splice(0).forEach((resolve) => resolve()),
    };
    created.push(session);
    return session as unknown as InferenceSession;
  });
  return created;
}

const logger = { info: jest.fn(), warn: jest.fn() } as unknown as Logger;
/** Room for `sessions` sessions of one-character versions. */
const budgetFor = (sessions: number) => ({ servingModelMemoryBytes: sessions * sessionBytes(1) }) as AppConfig;
const metrics = () => new PredictionMetricsService(new Registry());
const service = (models: ModelsService, sessions = 100) => new ServingModelsService(models, budgetFor(sessions), metrics(), logger);
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('ServingModelsService', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] }));
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('serves what is stored at each call: a rename under the same session, a deleted model gone, its session released after the grace delay', async () => {
    const sessions = fakeSessions();
    const { models } = registry([[ref('a'), ref('b')], [ref('a', 'renamed'), ref('b')], [ref('b')]]);
    const serving = service(models);

    const first = await serving.forOrganization(ORG);
    const renamed = await serving.forOrganization(ORG);
    expect(renamed.models.map((m) => m.name)).toEqual(['renamed', 'model_b']);
    expect(renamed.key).not.toBe(first.key);
    expect(sessions).toHaveLength(2);

    const deleted = await serving.forOrganization(ORG);
    expect(deleted.models.map((m) => m.versionId)).toEqual(['b']);
    expect(sessions[0].release).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(30_000);
    expect(sessions[0].release).toHaveBeenCalledTimes(1);
    expect(sessions[1].release).not.toHaveBeenCalled();
  });

  it('never releases a session a call that read before a change still serves: the version is served again, on the same session', async () => {
    const sessions = fakeSessions();
    // The view serves a; a call reads [a, held] (held loads slowly); the next call reads [b] and retires a.
    const { models, release } = registry([[ref('a')], [ref('a'), ref('held')], [ref('b')]]);
    const serving = service(models);
    await serving.forOrganization(ORG);

    const slow = serving.forOrganization(ORG);
    await turn();
    await serving.forOrganization(ORG);
    release('held');
    const stale = await slow;

    await jest.advanceTimersByTimeAsync(30_000);
    const sessionsOfA = sessions.filter((s) => s.versionId === 'a');
    expect(sessionsOfA).toHaveLength(1);
    expect(sessionsOfA[0].release).not.toHaveBeenCalled();
    await stale.models.find((m) => m.versionId === 'a')?.session.run({});
    expect(sessionsOfA[0].run).toHaveBeenCalledTimes(1);
  });

  it('keeps sessions within the memory budget, least recently used released first, and loads a released one again when it is run', async () => {
    const sessions = fakeSessions();
    const { models } = registry([[ref('a'), ref('b')], [ref('c')]]);
    const serving = service(models, 2);
    const [a, b] = (await serving.forOrganization(ORG)).models;
    await a.session.run({});
    // b is now the least recently used: c's load releases it, not a.
    const [c] = (await serving.forOrganization('org_2')).models;
    expect(sessions.map((s) => s.versionId)).toEqual(['a', 'b', 'c']);
    expect(sessions[1].release).toHaveBeenCalledTimes(1);
    expect(sessions[0].release).not.toHaveBeenCalled();

    expect(await b.session.run({})).toEqual({ versionId: 'b' });
    expect(sessions.map((s) => s.versionId)).toEqual(['a', 'b', 'c', 'b']);
    // a was the least recently used then.
    expect(sessions[0].release).toHaveBeenCalledTimes(1);
    expect(await c.session.run({})).toEqual({ versionId: 'c' });
    expect(sessions[2].release).not.toHaveBeenCalled();
    expect((models.versionArtifact as jest.Mock).mock.calls.map(([, versionId]) => versionId)).toEqual(['a', 'b', 'c', 'b']);
  });

  it('releases a session evicted during a run only once the run has ended, and the run answers', async () => {
    const sessions = fakeSessions({ holdRuns: true });
    const { models } = registry([[ref('a')], [ref('b')]]);
    const serving = service(models, 1);
    const [a] = (await serving.forOrganization(ORG)).models;
    const running = a.session.run({});
    await turn();
    await serving.forOrganization('org_2');
    expect(sessions[0].release).not.toHaveBeenCalled();
    sessions[0].finish();
    expect(await running).toEqual({ versionId: 'a' });
    expect(sessions[0].release).toHaveBeenCalledTimes(1);
  });

  it('explains from the session a run just used; one released meanwhile is a clear, retryable error', async () => {
    fakeSessions();
    const { models } = registry([[ref('a')], [ref('b')]]);
    const serving = service(models, 1);
    const [a] = (await serving.forOrganization(ORG)).models;
    await a.session.run({});
    // The fake bytes are no ONNX model: reading them back throws, which shows the explainer was asked for.
    expect(() => a.explainer()).toThrow(/index out of range|invalid wire type|illegal/i);
    await serving.forOrganization('org_2');
    expect(() => a.explainer()).toThrow(expect.objectContaining({ code: 'unavailable' }));
  });
});
