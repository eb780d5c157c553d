// A training run's matrix and fit, in a child process of the worker (train-in-process.ts): what to
// train arrives as the first message; the process reads the organization's events over a connection
// of its own, builds the matrix, fits, answers the model or the error's message, and exits,
// returning everything it allocated to the system. Traced, its queries and fit belong to the trace of
// the worker's job.
import './training-tracing';
import { Worker } from 'node:worker_threads';
import { TrainingEvents } from '@foresight/events';
import { connectSql, inSpan, inTraceContext } from '@foresight/platform';
import { stopTracing } from '@foresight/platform/tracing';
import { type BuiltDataset, DatasetBuilder, type ModelDefinition } from '../dataset/dataset-builder';
import { rowCount, trainModel } from '../training';
import type { TrainingOutcome, TrainingProcessInput } from './train-in-process';

const ORPHAN_CHECK_MS = 500;
/** How long the run's answer waits for its spans to be sent when the collector does not answer. */
const SPAN_FLUSH_MS = 5_000;

/**
 * A worker that dies (SIGKILL, the OOM killer) closes the channel, but the fit is synchronous and this
 * process's event loop would hear of it only when the fit ends, minutes later for a large organization,
 * spending a core on a run another worker starts again. A thread of its own notices being adopted (its
 * parent's pid is no longer the worker's) and ends the process. The worker's pid comes as the process's
 * argument, not from process.ppid once loaded: a worker killed while this process loads its modules (a
 * second or more on a busy machine) would otherwise leave it watching its new parent, and fitting.
 */
function stopWhenOrphaned(): void {
  const watchdog = new Worker(
    `const { workerData } = require('node:worker_threads');
     const orphaned = () => { if (process.ppid !== workerData.parent) process.kill(process.pid, 'SIGKILL'); };
     orphaned();
     setInterval(orphaned, workerData.everyMs);`,
    { eval: true, workerData: { parent: Number(process.argv[2]), everyMs: ORPHAN_CHECK_MS } },
  );
  watchdog.unref();
}

/** The matrix, read over connections of the process's own that close before the fit's minutes. */
async function buildDataset(model: ModelDefinition): Promise<BuiltDataset> {
  const database = await connectSql('training');
  try {
    return await new DatasetBuilder(new TrainingEvents(database.sql), database.config).build(model);
  } finally {
    await database.close();
  }
}

async function train({ model, fit }: TrainingProcessInput): Promise<TrainingOutcome> {
  const startedAt = performance.now();
  const { split, ...dataset } = await inSpan('training matrix', () => buildDataset(model));
  const builtAt = performance.now();
  const trained = await inSpan('training fit', async () => trainModel({ ...fit, split }));
  return {
    dataset: { ...dataset, validationRows: rowCount(split.validation) },
    model: trained,
    seconds: { matrix: (builtAt - startedAt) / 1000, fit: (performance.now() - builtAt) / 1000 },
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
  };
}

/** The spans still buffered (none without tracing), sent before the process exits. */
function flushSpans(): Promise<void> {
  const givenUp = new Promise<void>((resolve) => setTimeout(resolve, SPAN_FLUSH_MS).unref());
  return Promise.race([stopTracing().catch(() => undefined), givenUp]);
}

stopWhenOrphaned();
process.once('message', (input: TrainingProcessInput) => {
  void inTraceContext(input.traceContext, () => train(input))
    .catch((error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }))
    .then(async (outcome) => {
      await flushSpans();
      process.send?.(outcome, () => process.exit(0));
    });
});
