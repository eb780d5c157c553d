import { Registry } from 'prom-client';
import type { FeatureManifest } from '@foresight/features';
import type { ModelsService, ServingVersionRef } from '@foresight/models';
import { type AppConfig, createRandom, type Logger } from '@foresight/platform';
import type { ModelParameters } from '../../libs/models/src/training/model-parameters';
import { exportOnnx } from '../../libs/models/src/training/onnx-export';
import { loadOnnxRuntime } from '../../libs/models/src/training/onnx-runtime.fixture';
import { predictProbabilities } from '../../libs/models/src/training/train-model';
import { PredictionMetricsService } from '../../libs/predictions/src/serving/prediction-metrics.service';

const ORGANIZATIONS = 100;
const MODELS_PER_ORGANIZATION = 10;
const FEATURES = ['events_7d', 'sessions_7d', 'days_since_last_event'];
const ROWS = 4;
/** The smallest budget the configuration allows: about 240 of these models' sessions, a quarter of them. */
const BUDGET_BYTES = 16 * 1024 * 1024;

interface TinyModel {
  ref: ServingVersionRef;
  parameters: ModelParameters;
  onnx: Uint8Array;
}

/** A logistic model of its own coefficients, exported by the project's exporter. */
function tinyModel(organization: number, m: number, random: () => number): TinyModel {
  const parameters: ModelParameters = {
    kind: 'logistic',
    logScaled: [true, false, false],
    coefficients: FEATURES.map(() => Math.fround(random() * 4 - 2)),
    center: FEATURES.map(() => Math.fround(random())),
    offset: Math.fround(random() - 0.5),
    intercept: 0,
  };
  const versionId = `ver_${organization}_${m}`;
  return { ref: { modelId: `mdl_${organization}_${m}`, name: `model_${m}`, labels: ['no', 'yes'], versionId }, parameters, onnx: exportOnnx(parameters, FEATURES) };
}

/**
 * 1,000 models across 100 organizations served by real ONNX Runtime sessions from one process with
 * the smallest memory budget: every organization's predictions asked for in turn, twice over
 * (for an LRU the worst order: each pass evicts every session before it is asked for again). What the
 * LRU holds never exceeds the budget, sessions are evicted and loaded again, and every answer is the
 * model's own (predictProbabilities, the trainer's reference, on the same rows).
 */
describe('serving 1,000 models within a memory budget', () => {
  it('holds at most the budget, and every prediction after eviction and reload is the model’s own', async () => {
    // ONNX Runtime with this realm's typed arrays (see the fixture), before the service loads it.
    const { InferenceSession } = await loadOnnxRuntime();
    const { ServingModelsService, sessionBytes } = await import('../../libs/predictions/src/serving/serving-models.service');
    const random = createRandom(42);
    const organizations = Array.from({ length: ORGANIZATIONS }, (_, o) => Array.from({ length: MODELS_PER_ORGANIZATION }, (__, m) => tinyModel(o, m, random)));
    const byVersion = new Map(organizations.flat().map((model) => [model.ref.versionId, model]));
    const models = {
      servingVersions: async (organizationId: string) => organizations[Number(organizationId.slice('org_'.length))].map((model) => model.ref),
      versionArtifact: async (_: string, versionId: string) => {
        const model = byVersion.get(versionId) as TinyModel;
        return { version: 1, manifest: { names: FEATURES } as FeatureManifest, onnx: model.onnx };
      },
    } as unknown as ModelsService;
    const registry = new Registry();
    const metrics = new PredictionMetricsService(registry);
    const created = jest.spyOn(InferenceSession, 'create');
    const logger = { info: () => undefined } as unknown as Logger;
    const serving = new ServingModelsService(models, { servingModelMemoryBytes: BUDGET_BYTES } as AppConfig, metrics, logger);
    const gauge = async (name: string) => (await registry.getSingleMetric(name)?.get())?.values[0]?.value ?? 0;

    const features = Float32Array.from({ length: ROWS * FEATURES.length }, () => Math.fround(random() * 10));
    let mostHeld = 0;
    let rssBefore = 0;
    try {
      for (let pass = 0; pass < 2; pass++) {
        for (let o = 0; o < ORGANIZATIONS; o++) {
          const set = await serving.forOrganization(`org_${o}`);
          const answers = await Promise.all(set.models.map((model) => model.runs.run(features, ROWS)));
          set.models.forEach((model, m) => {
            const expected = predictProbabilities({ parameters: byVersion.get(model.versionId)?.parameters as ModelParameters, featureNames: FEATURES }, features);
            for (let row = 0; row < ROWS; row++) expect(answers[m].probabilities[row * 2 + 1]).toBeCloseTo(expected[row], 5);
          });
          mostHeld = Math.max(mostHeld, await gauge('foresight_serving_session_bytes'));
          // From when ONNX Runtime is up (its own arenas and library are no session's).
          if (rssBefore === 0) rssBefore = process.memoryUsage().rss;
        }
      }
      const rssGrowthMb = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
      const each = sessionBytes(organizations[0][0].onnx.byteLength);
      const evicted = await gauge('foresight_serving_session_evictions_total');
      process.stdout.write(
        `1,000 models: ${created.mock.calls.length} sessions created, ${evicted} evicted; most held ${(mostHeld / 2 ** 20).toFixed(1)} MiB ` +
          `of a ${BUDGET_BYTES / 2 ** 20} MiB budget (${each} B counted per session); RSS grew ${rssGrowthMb.toFixed(1)} MiB after the first organization\n`,
      );
      expect(mostHeld).toBeLessThanOrEqual(BUDGET_BYTES);
      expect(await gauge('foresight_serving_sessions')).toBeLessThanOrEqual(Math.floor(BUDGET_BYTES / each));
      // The second pass loads every session again: the budget holds a quarter of them, and the order is the LRU's worst.
      expect(created.mock.calls.length).toBe(2 * ORGANIZATIONS * MODELS_PER_ORGANIZATION);
      expect(evicted).toBeGreaterThan(ORGANIZATIONS * MODELS_PER_ORGANIZATION);
    } finally {
      serving.onModuleDestroy();
    }
  }, 600_000);
});
