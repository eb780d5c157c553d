// npm run bench:train — per demo mode (intent in event names, only in screens, or the SaaS product), 50,000
// demo users through ingestion, then per target of the mode (checkout; SaaS: cancellation and upgrade):
//  - a real training run in a real worker: wall time (matrix + fit + export), peak memory, validation AUC;
//  - the same matrix, rebuilt here at the run's cutoff, fitted in this process by Foresight and, as
//    references nobody here wrote, by XGBoost (hist) and scikit-learn HistGradientBoosting (python3):
//    AUC, log loss, ECE and fit time of each, beside the generator's oracle AUC on the same holdout;
//  - scikit-learn on generic features (support/generic_features.py): what a data scientist writes without
//    knowing the generator, from the same users' raw events at the same cutoffs, labels and split;
//  - "before": the same learners on the columns of the pre-issue feature set (version-1 manifests:
//    event counts and session totals), the same rows;
//  - SaaS only, the other prediction kinds: churn (`inactivity`, AUC and ECE beside XGBoost on the same
//    matrix) and credits bought (`value`: MAE, RMSE, R² and interval coverage beside XGBoost's
//    reg:squarederror and Tweedie regressions of the same sums on the same matrix).
// BENCH_TRAIN_ONLY=kinds benches only those other kinds (the event targets' references take long);
// BENCH_TRAIN_ONLY=real only the event targets' real runs (time and peak RSS, e.g. at 50,000 users), no references.
// BENCH_TRAIN_USERS above 100,000 (e.g. 1000000) benches scale instead: that many users and 50,000,
// seeded alike by COPY (support/copy-seed.ts), each trained by a fresh worker: its peak RSS and time per
// row of the matrix, the large run's beside the small one's (targets: <= 2 GiB, ratio <= 1).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { DEMO_INTENT_SIGNALS, type DemoIntentSignal, demoOracleProbability, type DemoTruth } from '@foresight/demo';
import { TrainingEvents } from '@foresight/events';
import { DatasetBuilder, DEFAULT_ACTIVE_DAYS, planTraining, type PredictionTarget, rocAuc, type TrainingSet, type TrainingSplit, trainModel } from '@foresight/models';
import { type AppConfig, loadConfig, type Logger, SqlExecutor } from '@foresight/platform';
import { request } from '../support/http';
import { cliJson, processCpuSeconds, type RunningProcess, startApi, startWorker, statusKiB } from '../support/processes';
import type { TestSuite } from '../support/suite';
import { benchmark } from './support/benchmark';
import { copySeedEvents } from './support/copy-seed';
import { genericReference, type LearnerResult, type ReferenceRow, referenceRows } from './support/generic-reference';

const USERS = Number(process.env.BENCH_TRAIN_USERS ?? 50_000);
const SIGNALS = (process.env.BENCH_TRAIN_SIGNALS?.split(',') ?? DEMO_INTENT_SIGNALS) as DemoIntentSignal[];
/** `kinds`: only the models of the other prediction kinds (MODE_KINDS), not the event targets and their references. */
const ONLY_KINDS = process.env.BENCH_TRAIN_ONLY === 'kinds';
/** `real`: only the event targets' real training runs, neither their references nor the other kinds. */
const ONLY_REAL = process.env.BENCH_TRAIN_ONLY === 'real';
/** Fewer days seed a large run faster; a 7-day horizon with its 14-day holdout needs more than 21. */
const DAYS = Number(process.env.BENCH_TRAIN_DAYS ?? 45);
/**
 * Above this many users the bench shows bounded cost only (benchScale): the references, fitted in
 * this process on the whole matrix, would not fit in memory nor say anything new.
 */
const REFERENCES_MAX_USERS = 100_000;
/** The scale bench's baseline run, seeded and trained the same way in the same run. */
const SCALE_BASELINE_USERS = 50_000;
const GIB_MB = 1024;
/** What each mode's models predict; the SaaS horizons are those its regimes play out over. */
const MODE_TARGETS: Record<DemoIntentSignal, ReadonlyArray<{ target: string; horizonDays: number }>> = {
  events: [{ target: 'checkout', horizonDays: 7 }],
  screens: [{ target: 'checkout', horizonDays: 7 }],
  saas: [
    { target: 'subscription_cancelled', horizonDays: 14 },
    { target: 'plan_upgraded', horizonDays: 7 },
  ],
};
/** The other kinds' models of a mode (the SaaS product churns and buys credits). */
const MODE_KINDS: Partial<Record<DemoIntentSignal, ReadonlyArray<Record<string, unknown> & { kind: 'inactivity' | 'value'; horizonDays: number }>>> = {
  saas: [
    { kind: 'inactivity', horizonDays: 7 },
    { kind: 'value', targetEvent: 'credits_purchased', valueProperty: 'amountEur', horizonDays: 7 },
  ],
};
/** The machine the targets are stated for. */
const THREADS = 2;
/** TRAINING_MAX_USERS below the bench's users shows the bounded cost of a sampled run (e.g. 10000 of 50000). */
const TRAINING_ENV: Record<string, string> = process.env.TRAINING_MAX_USERS ? { TRAINING_MAX_USERS: process.env.TRAINING_MAX_USERS } : {};
const REFERENCES_SCRIPT = join(__dirname, 'support', 'reference_learners.py');
const REGRESSORS_SCRIPT = join(__dirname, 'support', 'reference_regressors.py');
/** Debian's packages install for the system interpreter, which may not be the first python3 on the PATH (pyenv). */
const PYTHONS = ['python3', '/usr/bin/python3'];

/** What version-1 manifests (before screens, trends, target history and numeric properties) held besides event counts. */
const VERSION_1_WINDOW_FEATURES = new Set([
  'events_1d', 'events_7d', 'events_30d', 'sessions_7d', 'sessions_30d', 'mean_session_seconds_30d', 'events_per_session_30d',
  'total_dwell_seconds_30d', 'mean_hesitation_ms_30d', 'mean_scroll_depth_30d', 'distinct_events_30d', 'days_since_last_event', 'days_since_first_event',
]);
const isVersion1Feature = (name: string) => name.startsWith('count_') || VERSION_1_WINDOW_FEATURES.has(name);

benchmark('bench_train', async (suite) => {
  if (USERS > REFERENCES_MAX_USERS) return benchScale(suite);
  const python = ONLY_REAL ? undefined : ensureReferenceLearners();
  const api = await startApi({ ...suite.env, LOG_LEVEL: 'warn' });
  const dataSource = await new DataSource({ type: 'postgres', url: suite.env.DATABASE_URL }).initialize();
  const config = loadConfig({ ...suite.env, ...TRAINING_ENV });
  const sql = new SqlExecutor(dataSource, config, console as unknown as Logger);
  const builder = new DatasetBuilder(new TrainingEvents(sql), config);
  const report: string[] = [];
  const loads = [loadavg()[0]];
  try {
    for (const signal of SIGNALS) report.push(...(await benchMode(suite, api, builder, config, signal, python)));
  } finally {
    await dataSource.destroy();
    await api.stop();
  }
  loads.push(loadavg()[0]);
  console.log(`\nbench:train (${USERS} users, ${DAYS} days, references on ${THREADS} threads; load average ${loads.map((l) => l.toFixed(1)).join(' -> ')} on ${THREADS} cores, shared)`);
  for (const line of report) console.log(line);
  console.log('targets: real run <= 60 s for 50,000 users; Foresight AUC >= XGBoost - 0.005 and >= generic features; Foresight fit <= 3x XGBoost fit; ECE <= 0.03');
});

async function benchMode(suite: TestSuite, api: RunningProcess, builder: DatasetBuilder, config: AppConfig, signal: DemoIntentSignal, python: string | undefined): Promise<string[]> {
  const { organization, token } = await suite.createOrganization(`Bench ${signal}`, ['--rate-limit', '100000000', '--burst', '200000000']);
  const truthFile = join(tmpdir(), `foresight-bench-truth-${process.pid}-${signal}.ndjson`);
  const seeded = await cliJson<{ accepted: number; seconds: number }>(suite.env, [
    'demo', 'seed', '--org', organization.id, '--users', String(USERS), '--days', String(DAYS), '--intent-signal', signal, '--truth-file', truthFile,
  ]);
  console.log(`[${signal}] seeded ${USERS} users, ${seeded.accepted} events through ingestion in ${seeded.seconds.toFixed(1)} s`);
  const truth = USERS > REFERENCES_MAX_USERS || ONLY_REAL ? undefined : readTruth(truthFile);
  if (!truth) rmSync(truthFile);
  const lines: string[] = [];
  // Each model's table as soon as it is measured (a long run stopped early keeps what it found), and all again at the end.
  const add = (measured: string[]) => {
    console.log(measured.join('\n'));
    lines.push(...measured);
  };
  for (const { target, horizonDays } of ONLY_KINDS ? [] : MODE_TARGETS[signal]) {
    const mode = { suite, api, token: token.secret, organizationId: organization.id, builder, config, python, label: `${signal} ${target} ${horizonDays}d`, accepted: seeded.accepted };
    add(await benchTarget(mode, target, horizonDays, truth));
  }
  for (const body of ONLY_REAL ? [] : (MODE_KINDS[signal] ?? [])) {
    add(await benchKind({ suite, api, token: token.secret, organizationId: organization.id, builder, config, python, label: `${signal} ${body.kind} ${body.horizonDays}d`, accepted: seeded.accepted }, body));
  }
  return lines;
}

/**
 * A model of another kind: its real run, then its matrix rebuilt at the run's cutoff and fitted here by
 * Foresight and, on the same rows, by XGBoost: the classifier for churn, regressions of the sums for value.
 */
async function benchKind(mode: BenchedMode, body: Record<string, unknown> & { kind: 'inactivity' | 'value'; horizonDays: number }): Promise<string[]> {
  const { suite, label, python } = mode;
  const run = await realTrainingRun(suite, mode.api, mode.token, body);
  const [version] = await suite.sql<{ window_end: Date; metrics: { calibrationError: number; value?: Record<string, number> } }>(
    `SELECT window_end, metrics FROM model_versions WHERE model_id = $1`,
    [run.modelId],
  );
  const target: PredictionTarget =
    body.kind === 'inactivity' ? { kind: 'inactivity', activeDays: DEFAULT_ACTIVE_DAYS } : { kind: 'value', targetEvent: String(body.targetEvent), valueProperty: String(body.valueProperty) };
  const { split, manifest, dormant } = await mode.builder.build({ organizationId: mode.organizationId, target, horizonDays: body.horizonDays }, version.window_end.getTime());
  const lines = [
    ``,
    `[${label}] ${mode.accepted} events; real run ${run.seconds.toFixed(1)} s, peak ${run.peakMb.toFixed(0)} MB (${run.peakParts}), validation AUC ${run.auc.toFixed(4)}, ECE ${version.metrics.calibrationError.toFixed(4)}`,
    `[${label}] matrix ${split.train.labels.length} train + ${split.tuning?.labels.length ?? 0} tuning + ${split.validation.labels.length} validation rows x ${manifest.names.length} features` +
      (dormant ? `; ${dormant.rows} rows of users not active within ${DEFAULT_ACTIVE_DAYS} days left out (churn rate ${(dormant.churned / Math.max(1, dormant.rows)).toFixed(3)})` : ''),
  ];
  const started = Date.now();
  const trained = trainModel({ algorithm: 'gbdt', split });
  const fitSeconds = (Date.now() - started) / 1000;
  if (body.kind === 'inactivity') {
    const learners: Array<[string, LearnerResult]> = [['foresight gbdt', { ...trained.metrics, fitSeconds }]];
    for (const [name, result] of Object.entries(python ? referenceLearners(python, split) : {})) learners.push([name === 'xgboost' ? 'xgboost hist' : 'sklearn HistGB', result]);
    lines.push(
      `${'learner'.padEnd(26)}${'AUC'.padStart(8)}${'log loss'.padStart(10)}${'ECE'.padStart(8)}${'fit s'.padStart(8)}`,
      ...learners.map(([name, r]) => `${name.padEnd(26)}${r.auc.toFixed(4).padStart(8)}${r.logLoss.toFixed(4).padStart(10)}${r.calibrationError.toFixed(4).padStart(8)}${r.fitSeconds.toFixed(2).padStart(8)}`),
    );
    return lines;
  }
  const value = trained.metrics.value;
  const regressors: Array<[string, { mae: number; rmse: number; r2: number; fitSeconds: number; intervalCoverage?: number }]> = [];
  if (value) regressors.push(['foresight P(any) x amount', { ...value, fitSeconds }]);
  for (const [name, result] of Object.entries(python ? referenceRegressors(python, split) : {})) regressors.push([name, result]);
  lines.push(
    `[${label}] validation: mean actual sum ${value?.meanActual.toFixed(2)}, mean predicted ${value?.meanPredicted.toFixed(2)}, p10-p90 expected to hold ${value?.expectedIntervalCoverage?.toFixed(3)}; AUC of "any" ${trained.metrics.auc.toFixed(4)}, ECE ${trained.metrics.calibrationError.toFixed(4)}`,
    `${'learner'.padEnd(26)}${'MAE'.padStart(9)}${'RMSE'.padStart(9)}${'R²'.padStart(8)}${'p10-p90'.padStart(9)}${'fit s'.padStart(8)}`,
    ...regressors.map(
      ([name, r]) =>
        `${name.padEnd(26)}${r.mae.toFixed(3).padStart(9)}${r.rmse.toFixed(3).padStart(9)}${r.r2.toFixed(4).padStart(8)}${(r.intervalCoverage?.toFixed(3) ?? '-').padStart(9)}${r.fitSeconds.toFixed(2).padStart(8)}`,
    ),
  );
  return lines;
}

interface BenchedMode {
  suite: TestSuite;
  api: RunningProcess;
  token: string;
  organizationId: string;
  builder: DatasetBuilder;
  config: AppConfig;
  python: string | undefined;
  label: string;
  accepted: number;
}

async function benchTarget(mode: BenchedMode, target: string, horizonDays: number, truth: Map<string, DemoTruth> | undefined): Promise<string[]> {
  const { suite, label, python } = mode;
  const run = await realTrainingRun(suite, mode.api, mode.token, { targetEvent: target, horizonDays });
  const [version] = await suite.sql<{ window_end: Date; validation_rows: number; train_rows: number; trained_on: { users: number; sampledUsers: number; cutoffStepDays: number } }>(
    `SELECT window_end, validation_rows, train_rows, manifest->'trainedOn' AS trained_on FROM model_versions WHERE model_id = $1`,
    [run.modelId],
  );
  const realRun =
    `[${label}] ${mode.accepted} events; real run ${run.seconds.toFixed(1)} s (${run.phases}), worker and its fit ${run.cpuSeconds.toFixed(1)} CPU s since its start, peak ${run.peakMb.toFixed(0)} MB (${run.peakParts}), validation AUC ${run.auc.toFixed(4)}` +
    ` (${version.trained_on.sampledUsers} of ${version.trained_on.users} users sampled, cutoffs every ${version.trained_on.cutoffStepDays} d, ${version.train_rows} train + ${version.validation_rows} validation rows)`;
  console.log(realRun);
  if (!truth) return ['', realRun];
  const matrixStarted = Date.now();
  const dataset = await mode.builder.build({ organizationId: mode.organizationId, target: { kind: 'event', targetEvent: target }, horizonDays }, version.window_end.getTime());
  const matrixSeconds = (Date.now() - matrixStarted) / 1000;

  const { split, manifest } = dataset;
  const before = selectColumns(split, manifest.names.map(isVersion1Feature));
  const learners: Array<[string, LearnerResult]> = [];
  let xgboostSeconds: number | undefined;
  for (const [era, matrix] of [['', split], ['before: ', before]] as const) {
    for (const algorithm of era ? (['gbdt'] as const) : (['gbdt', 'logistic'] as const)) {
      const started = Date.now();
      const trained = trainModel({ algorithm, split: matrix });
      learners.push([`${era}foresight ${algorithm}`, { ...trained.metrics, fitSeconds: (Date.now() - started) / 1000 }]);
    }
    const references = python ? referenceLearners(python, matrix) : {};
    for (const [name, result] of Object.entries(references)) learners.push([`${era}${name === 'xgboost' ? 'xgboost hist' : 'sklearn HistGB'}`, result]);
    if (!era) xgboostSeconds = references.xgboost?.fitSeconds;
  }
  const reference = { organizationId: mode.organizationId, targetEvent: target, plan: planTraining(version.window_end.getTime(), horizonDays, manifest.trainedOn?.cutoffStepDays) };
  const rows = await referenceRows(suite, reference);
  const generic = python ? await genericReference(suite, mode.config, python, THREADS, reference, rows) : undefined;
  for (const [name, result] of Object.entries(generic?.learners ?? {})) learners.push([name, result]);
  const oracle = oracleAuc(rows, truth, target, horizonDays);

  const partRows = (part: ReferenceRow['part']) => rows.filter((row) => row.part === part).length;
  const lines = [
    ``,
    realRun,
    `[${label}] matrix ${split.train.labels.length} train + ${split.tuning?.labels.length ?? 0} tuning + ${split.validation.labels.length} validation rows x ${manifest.names.length} features` +
      ` (before: ${before.train.featureNames.length}; generic: ${generic?.features ?? '-'}), rebuilt here in ${matrixSeconds.toFixed(1)} s` +
      ` (cutoffs every ${manifest.trainedOn?.cutoffStepDays} d, ${manifest.trainedOn?.sampledUsers} of ${manifest.trainedOn?.users} users)`,
    // The generic features' rows are found again from the events by the matrix's rules: the counts must agree.
    `[${label}] generic rows ${partRows('train')} train + ${partRows('tuning')} tuning + ${partRows('validation')} validation`,
    `${'learner'.padEnd(26)}${'AUC'.padStart(8)}${'log loss'.padStart(10)}${'ECE'.padStart(8)}${'fit s'.padStart(8)}${'fit/xgb'.padStart(9)}`,
    ...learners.map(
      ([name, r]) =>
        `${name.padEnd(26)}${r.auc.toFixed(4).padStart(8)}${r.logLoss.toFixed(4).padStart(10)}${r.calibrationError.toFixed(4).padStart(8)}${r.fitSeconds.toFixed(2).padStart(8)}` +
        `${(xgboostSeconds ? (r.fitSeconds / xgboostSeconds).toFixed(2) : '-').padStart(9)}`,
    ),
    `${'oracle'.padEnd(26)}${oracle.auc.toFixed(4).padStart(8)}   (${oracle.rows} holdout rows, the model validated on ${version.validation_rows})`,
  ];
  if (!python) lines.push('references skipped: python3 with xgboost and sklearn is not available (see above)');
  return lines;
}

/**
 * Training at scale: SCALE_BASELINE_USERS users and USERS users seeded alike by COPY (both before
 * either run, so both read the same tables), then a real run of each by a fresh worker: its peak RSS,
 * and its wall time per row of the matrix (the large run reads a sample of TRAINING_MAX_USERS users).
 */
async function benchScale(suite: TestSuite): Promise<void> {
  const api = await startApi({ ...suite.env, LOG_LEVEL: 'warn' });
  const loads = [loadavg()[0]];
  const runs: Array<{ users: number; events: number; line: string; peakMb: number; msPerRow: number }> = [];
  try {
    const now = Date.now();
    const seeded = [];
    for (const users of [SCALE_BASELINE_USERS, USERS]) {
      const { organization, token } = await suite.createOrganization(`Bench scale ${users}`);
      const started = Date.now();
      const events = await copySeedEvents(suite.env.DATABASE_URL, organization.id, users, DAYS, now);
      console.log(`[${users} users] seeded ${events} events by COPY in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      seeded.push({ users, events, organizationId: organization.id, token: token.secret });
    }
    for (const { users, events, token } of seeded) {
      const run = await realTrainingRun(suite, api, token, { targetEvent: 'checkout', horizonDays: 7 });
      const [version] = await suite.sql<{ train_rows: number; validation_rows: number; trained_on: { users: number; sampledUsers: number; cutoffStepDays: number } }>(
        `SELECT train_rows, validation_rows, manifest->'trainedOn' AS trained_on FROM model_versions WHERE model_id = $1`,
        [run.modelId],
      );
      const rows = version.train_rows + version.validation_rows;
      const msPerRow = (run.seconds * 1000) / rows;
      const line =
        `[${users} users] ${events} events; real run ${run.seconds.toFixed(1)} s (${run.phases}), peak RSS ${run.peakMb.toFixed(0)} MB (${run.peakParts}), ${(msPerRow * 1000).toFixed(1)} µs per row` +
        ` (${rows} rows: ${version.trained_on.sampledUsers} of ${version.trained_on.users} users, cutoffs every ${version.trained_on.cutoffStepDays} d), validation AUC ${run.auc.toFixed(4)}`;
      console.log(line);
      runs.push({ users, events, line, peakMb: run.peakMb, msPerRow });
    }
  } finally {
    await api.stop();
  }
  loads.push(loadavg()[0]);
  const [baseline, large] = runs;
  console.log(`\nbench:train scale (${DAYS} days; load average ${loads.map((l) => l.toFixed(1)).join(' -> ')} on ${THREADS} cores, shared)`);
  for (const { line } of runs) console.log(line);
  console.log(`peak RSS at ${large.users} users: ${(large.peakMb / GIB_MB).toFixed(2)} GiB (target <= 2 GiB); ${(large.peakMb / baseline.peakMb).toFixed(2)}x the ${baseline.users}-user run's`);
  console.log(`time per row at ${large.users} users / at ${baseline.users}: ${(large.msPerRow / baseline.msPerRow).toFixed(2)} (target <= 1)`);
}

/** The generator's per-user truth (propensities, hidden states), read once and removed. */
function readTruth(truthFile: string): Map<string, DemoTruth> {
  const truth = new Map<string, DemoTruth>();
  for (const line of readFileSync(truthFile, 'utf8').split('\n')) {
    if (!line) continue;
    const user = JSON.parse(line) as DemoTruth;
    truth.set(user.userId, user);
  }
  rmSync(truthFile);
  return truth;
}

/** A retrain through the API, run by a fresh worker process (so its peak RSS is this run's). */
async function realTrainingRun(suite: TestSuite, api: RunningProcess, token: string, model: Record<string, unknown> & { horizonDays: number }) {
  const worker = await startWorker({ ...suite.env, ...TRAINING_ENV });
  try {
    const kind = typeof model.kind === 'string' ? model.kind : 'event';
    const name = `bench_${typeof model.targetEvent === 'string' ? model.targetEvent : kind}_${kind}_${model.horizonDays}d`;
    const created = await request<{ id: string }>(`${api.baseUrl}/v1/models`, { token, method: 'POST', body: { name, ...model, algorithm: 'gbdt' } });
    const modelId = created.body.id;
    const started = Date.now();
    await request(`${api.baseUrl}/v1/models/retrain`, { token, method: 'POST', body: { modelId } });
    let details: Record<string, unknown> = {};
    while (Date.now() - started < 15 * 60_000) {
      details = (await request<Record<string, unknown>>(`${api.baseUrl}/v1/models/${modelId}`, { token })).body;
      if (details.status !== 'retraining') break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const seconds = (Date.now() - started) / 1000;
    if (details.status !== 'active') throw new Error(`${String(details.status)} ${String(details.lastError)}\n${worker.output().slice(-2000)}`);
    const pid = worker.child.pid as number;
    // The matrix and the fit run in a process of the worker's own: the sum of the two peaks bounds what the run held at once.
    const workerPeakMb = peakRssMb(pid);
    const trainingPeakMb = Number(/"trainingPeakRssMiB":(\d+)/.exec(worker.output())?.[1] ?? 0);
    return {
      modelId,
      seconds,
      auc: details.auc as number,
      peakMb: workerPeakMb + trainingPeakMb,
      peakParts: `worker ${workerPeakMb.toFixed(0)} + training process ${trainingPeakMb.toFixed(0)} MB`,
      cpuSeconds: processCpuSeconds(pid, { endedChildren: true }),
      phases: runPhases(worker.output()),
    };
  } finally {
    await worker.stop();
  }
}

/** A Python 3 with XGBoost and scikit-learn, installed from Debian when absent (the bench's set-up; CI never runs it). */
function ensureReferenceLearners(): string | undefined {
  const importable = () => PYTHONS.find((python) => spawnSync(python, ['-c', 'import numpy, xgboost, sklearn'], { stdio: 'ignore' }).status === 0);
  const found = importable();
  if (found) return found;
  console.log('installing python3-xgboost and python3-sklearn (apt-get) for the reference learners…');
  const install = spawnSync('apt-get', ['install', '-y', '-q', 'python3-xgboost', 'python3-sklearn'], { stdio: 'inherit' });
  if (install.status !== 0) console.log(`apt-get install failed (${install.status ?? install.error?.message}); references will be skipped`);
  return importable();
}

/** The same rows with only the columns `keep` marks. */
function selectColumns(split: TrainingSplit, keep: readonly boolean[]): TrainingSplit {
  const columns = keep.flatMap((kept, j) => (kept ? [j] : []));
  const select = (set: TrainingSet): TrainingSet => {
    const d = set.featureNames.length;
    const features = new Float32Array(set.labels.length * columns.length);
    for (let i = 0; i < set.labels.length; i++) columns.forEach((j, c) => (features[i * columns.length + c] = set.features[i * d + j]));
    return { features, labels: set.labels, featureNames: columns.map((j) => set.featureNames[j]) };
  };
  return { train: select(split.train), ...(split.tuning ? { tuning: select(split.tuning) } : {}), validation: select(split.validation) };
}

/** The matrix as raw float32/uint8 files (and the sums, for value models), in a directory `fit` reads; removed afterwards. */
function withMatrixFiles<T>(split: TrainingSplit, fit: (directory: string) => T): T {
  const directory = mkdtempSync(join(tmpdir(), 'foresight-bench-matrix-'));
  const write = (file: string, array: ArrayBufferView) => writeFileSync(join(directory, file), Buffer.from(array.buffer, array.byteOffset, array.byteLength));
  try {
    for (const [part, set] of Object.entries(split) as Array<[string, TrainingSet]>) {
      write(`${part}.features`, set.features);
      write(`${part}.labels`, set.labels);
      if (set.amounts) write(`${part}.amounts`, set.amounts);
    }
    return fit(directory);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** The matrix fitted by reference_learners.py on THREADS threads. */
function referenceLearners(python: string, split: TrainingSplit): Record<string, LearnerResult> {
  return withMatrixFiles(
    split,
    (directory) => JSON.parse(execFileSync(python, [REFERENCES_SCRIPT, directory, String(split.train.featureNames.length), String(THREADS)], { encoding: 'utf8' })) as Record<string, LearnerResult>,
  );
}

/** A value model's matrix and sums fitted by reference_regressors.py on THREADS threads. */
function referenceRegressors(python: string, split: TrainingSplit): Record<string, { mae: number; rmse: number; r2: number; fitSeconds: number }> {
  type Regression = { mae: number; rmse: number; r2: number; fitSeconds: number };
  return withMatrixFiles(
    split,
    (directory) => JSON.parse(execFileSync(python, [REGRESSORS_SCRIPT, directory, String(split.train.featureNames.length), String(THREADS)], { encoding: 'utf8' })) as Record<string, Regression>,
  );
}

/** Where the run's wall time went, as the worker logged it ("training run finished"): matrix, fit, store. */
function runPhases(output: string): string {
  const logged = (key: string) => {
    const found = new RegExp(`"${key}":(\\{[^}]*\\})`).exec(output);
    return found ? Object.entries(JSON.parse(found[1]) as Record<string, number>).map(([phase, seconds]) => `${phase} ${seconds.toFixed(1)} s`) : undefined;
  };
  const phases = logged('phaseSeconds');
  const matrix = logged('matrixSeconds');
  return phases ? `${phases.join(', ')}${matrix ? `; matrix: ${matrix.join(', ')}` : ''}` : 'phases not logged';
}

/** Peak resident memory of a running process (VmHWM), in MB. */
const peakRssMb = (pid: number) => statusKiB(pid, 'VmHWM') / 1024;

/** AUC of the generator's true probabilities on the validation rows (validation users at the run's validation cutoffs). */
function oracleAuc(rows: readonly ReferenceRow[], truth: Map<string, DemoTruth>, target: string, horizonDays: number) {
  const labels: number[] = [];
  const scores: number[] = [];
  for (const row of rows) {
    const userTruth = truth.get(row.userId);
    if (row.part !== 'validation' || !userTruth) continue;
    labels.push(row.label ? 1 : 0);
    scores.push(demoOracleProbability(userTruth, target, new Date(row.cutoff), horizonDays));
  }
  return { auc: rocAuc(Uint8Array.from(labels), Float64Array.from(scores)), rows: labels.length };
}
