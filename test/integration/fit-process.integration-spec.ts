import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { eventually } from '../support/eventually';
import { childrenOf, isRunning, processCpuSeconds } from '../support/processes';

const FIT_IN_PROCESS = join(__dirname, '..', '..', 'dist/libs/models/src/training-run/fit-in-process.js');

/**
 * Stands in for the worker: a process that fits through the built fitInProcess (npm test builds
 * first) a split of `rows` learnable rows per part (or of one class only), with `options` fixed, and
 * prints what came back.
 */
const PARENT = `
const { fitInProcess } = require(process.argv[1]);
const { rows, oneClass, options } = JSON.parse(process.argv[2]);
let seed = 7;
const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
const part = () => {
  const features = new Float32Array(rows * 4);
  const labels = new Uint8Array(rows);
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < 4; j++) features[i * 4 + j] = random();
    labels[i] = oneClass ? 0 : Number(random() < 1 / (1 + Math.exp(-6 * (features[i * 4] - features[i * 4 + 1]))));
  }
  return { features, labels, featureNames: ['a', 'b', 'c', 'd'] };
};
fitInProcess({ algorithm: 'gbdt', search: false, options, split: { train: part(), tuning: part(), validation: part() } }).then(
  ({ model, peakRssMiB }) => console.log(JSON.stringify({ auc: model.metrics.auc, onnxBytes: model.onnx.length, peakRssMiB })),
  (error) => console.log(JSON.stringify({ error: error.message })),
);
`;

describe('a fit in a process of its own', () => {
  const started: ChildProcess[] = [];
  const fits: number[] = [];

  afterEach(() => {
    // A failed test must not leave a fit spending a core.
    for (const parent of started.splice(0)) parent.kill('SIGKILL');
    for (const fit of fits.splice(0)) if (isRunning(fit)) process.kill(fit, 'SIGKILL');
  });

  function parent(args: { rows: number; oneClass?: boolean; options?: object }): { child: ChildProcess; answer: Promise<Record<string, unknown>> } {
    const child = spawn(process.execPath, ['-e', PARENT, FIT_IN_PROCESS, JSON.stringify(args)], { stdio: ['ignore', 'pipe', 'inherit'] });
    started.push(child);
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const answer = new Promise<Record<string, unknown>>((resolve) => child.once('close', () => resolve(JSON.parse(out || '{}') as Record<string, unknown>)));
    return { child, answer };
  }

  it('answers the fitted model and the memory its process held', async () => {
    const { answer } = parent({ rows: 2_000 });
    const answered = await answer;
    expect(answered.auc).toBeGreaterThan(0.7);
    expect(answered.onnxBytes).toBeGreaterThan(0);
    expect(answered.peakRssMiB).toBeGreaterThan(0);
  });

  it('answers a failed fit with its error message', async () => {
    const { answer } = parent({ rows: 2_000, oneClass: true });
    expect(String((await answer).error)).toMatch(/positive/i);
  });

  it('stops a fit whose worker was killed, though the fit itself would run on', async () => {
    // Rounds without end: this fit would run for hours.
    const { child } = parent({ rows: 20_000, options: { maxTrees: 10_000_000, earlyStoppingPatience: 10_000_000, learningRate: 1e-6 } });
    const fit = await eventually('the fit process', () => childrenOf(child.pid as number).at(0));
    fits.push(fit);
    // Well past start-up (loading the training code takes 1-2 CPU s) and the matrix's arrival: fitting.
    // A process killed before its matrix came would end anyway, when the channel closes.
    await eventually('the fit to be under way', () => (processCpuSeconds(fit) >= 5 ? true : undefined));
    child.kill('SIGKILL');
    await eventually('the orphaned fit to stop', () => (isRunning(fit) ? undefined : true), 15_000);
  });
});
