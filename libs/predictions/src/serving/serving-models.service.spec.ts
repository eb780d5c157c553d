import { InferenceSession } from 'onnxruntime-node';
import type { ModelsService, ServingVersionRef, VersionArtifact } from '@foresight/models';
import type { Logger } from '@foresight/platform';
import { ServingModelsService } from './serving-models.service';

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
      return { version: 1, manifest: { names: ['f'] } as VersionArtifact['manifest'], onnx: Buffer.from(versionId) };
    }),
  };
  return { models: models as unknown as ModelsService, release: (versionId: string) => held.get(versionId)?.() };
}

/** Every session ONNX Runtime "created", by the version whose bytes it was created from. */
function fakeSessions() {
  const created: Array<{ versionId: string; release: jest.Mock }> = [];
  jest.spyOn(InferenceSession, 'create').mockImplementation(async (bytes: Uint8Array) => {
    const session = { versionId: Buffer.from(bytes).toString(), release: jest.fn(async () => undefined) };
    created.push(session);
    return session as unknown as InferenceSession;
  });
  return created;
}

const logger = { info: jest.fn(), warn: jest.fn() } as unknown as Logger;
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
    const serving = new ServingModelsService(models, logger);

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

  it('never keeps a session a later call retired: a call that read before a change and finished after it loads the version again', async () => {
    const sessions = fakeSessions();
    // The view serves a; a call reads [a, held] (held loads slowly); the next call reads [b] and retires a.
    const { models, release } = registry([[ref('a')], [ref('a'), ref('held')], [ref('b')]]);
    const serving = new ServingModelsService(models, logger);
    await serving.forOrganization(ORG);

    const slow = serving.forOrganization(ORG);
    await turn();
    await serving.forOrganization(ORG);
    release('held');
    const stale = await slow;

    await jest.advanceTimersByTimeAsync(30_000);
    const retiredA = sessions.find((s) => s.versionId === 'a');
    expect(retiredA?.release).toHaveBeenCalledTimes(1);
    const servedA = stale.models.find((m) => m.versionId === 'a')?.session as unknown as (typeof sessions)[number];
    expect(servedA).not.toBe(retiredA);
    expect(servedA.release).not.toHaveBeenCalled();
  });
});
