import { InferenceSession } from 'onnxruntime-node';
import { exportOnnx, fitGbdt } from '../libs/models/src/training';
import { makeSyntheticData } from '../libs/models/src/training/synthetic-data.fixture';

function rssMb() { global.gc?.(); return process.memoryUsage().rss / 1048576; }
(async () => {
  const maxTrees = Number(process.argv[2]);
  const n = 300;
  const data = makeSyntheticData({ trainRows: 20000, validationRows: 2000, features: 40, positiveRate: 0.2, seed: 3 });
  const fit = fitGbdt(data.split, { maxTrees, earlyStoppingPatience: 1000 });
  const bytes = exportOnnx(fit.parameters, data.split.train.featureNames);
  // Warm up ORT's own one-off allocations.
  const warm = await InferenceSession.create(bytes);
  const before = rssMb();
  const sessions: InferenceSession[] = [];
  for (let i = 0; i < n; i++) sessions.push(await InferenceSession.create(Uint8Array.from(bytes), { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' }));
  const after = rssMb();
  console.log(`gbdt ${maxTrees} trees: ${bytes.length} B model, ${((after - before) * 1048576 / n / 1024).toFixed(0)} KiB RSS per session (x${(((after - before) * 1048576) / n / bytes.length).toFixed(2)} the bytes)`);
  void warm;
})();
