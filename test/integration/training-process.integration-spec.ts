import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { eventually } from '../support/eventually';
import { childrenOf, isRunning, processCpuSeconds } from '../support/processes';
import { openServiceDatabase, type ServiceDatabase } from '../support/service-database';
import { REDIS_URL } from '../support/services';
import { learnablePopulation, storeEvents } from '../support/training';

const TRAIN_IN_PROCESS = join(__dirname, '..', '..', 'dist/libs/models/src/training-run/train-in-process.js');
const ORGANIZATION = 'org_trainingprocess01';
const EMPTY_ORGANIZATION = 'org_trainingprocess02';

/**
 * Stands in for the worker: a process that trains through the built trainInProcess (npm test builds
 * first) the model of its first argument (TrainingProcessInput, as JSON) and prints what came back.
 * The training process reads the database of its environment, as a worker's does.
 */
const PARENT = `
const { trainInProcess } = require(process.argv[1]);
trainInProcess(JSON.parse(process.argv[2])).then(
  ({ dataset, model, seconds, peakRssMiB }) =>
    console.log(JSON.stringify({ auc: model.metrics.auc, onnxBytes: model.onnx.length, features: dataset.manifest.names.length, validationRows: dataset.validationRows, seconds, peakRssMiB })),
  (error) => console.log(JSON.stringify({ error: error.message })),
);
`;

describe('a training run in a process of its own', () => {
  let db: ServiceDatabase;
  const started: ChildProcess[] = [];
  const runs: number[] = [];

  beforeAll(async () => {
    db = await openServiceDatabase('training_process');
    await storeEvents(db.dataSource, ORGANIZATION, learnablePopulation(200, 60));
  });

  afterEach(() => {
    // A failed test must not leave a run spending a core.
    for (const parent of started.splice(0)) parent.kill('SIGKILL');
    for (const run of runs.splice(0)) if (isRunning(run)) process.kill(run, 'SIGKILL');
  });

  afterAll(async () => {
    await db?.close();
  });

  function parent(input: { organizationId?: string; fit?: object }, databaseUrl = db.url): { child: ChildProcess; answer: Promise<Record<string, unknown>> } {
    const model = { organizationId: input.organizationId ?? ORGANIZATION, target: { kind: 'event', targetEvent: 'checkout' }, horizonDays: 7 };
    const env = { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL, TOKEN_PEPPER: randomBytes(32).toString('hex'), ENCRYPTION_KEY: randomBytes(32).toString('hex'), LOG_LEVEL: 'warn' };
    const child = spawn(process.execPath, ['-e', PARENT, TRAIN_IN_PROCESS, JSON.stringify({ model, fit: input.fit ?? { algorithm: 'gbdt' } })], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    started.push(child);
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const answer = new Promise<Record<string, unknown>>((resolve) => child.once('close', () => resolve(JSON.parse(out.trim().split('\n').at(-1) || '{}') as Record<string, unknown>)));
    return { child, answer };
  }

  it("builds the matrix from the organization's events and answers the fitted model, its dataset's description and the memory its process held", async () => {
    const answered = await parent({}).answer;
    expect(answered.features).toBeGreaterThan(0);
    expect(answered.seconds).toEqual({ matrix: expect.closeTo(0, -3) as number, fit: expect.closeTo(0, -3) as number });
    expect(answered.auc).toBeGreaterThan(0.7);
    expect(answered.onnxBytes).toBeGreaterThan(0);
    expect(answered.validationRows).toBeGreaterThan(0);
    expect(answered.peakRssMiB).toBeGreaterThan(0);
  });

  it("answers an organization without enough users in each class with the eligibility error, and reads no other organization's events", async () => {
    expect(String((await parent({ organizationId: EMPTY_ORGANIZATION }).answer).error)).toMatch(/at least \d+ users/i);
  });

  it('answers the connection error of a database it cannot reach', async () => {
    const unreachable = new URL(db.url);
    unreachable.port = '1';
    expect(String((await parent({}, unreachable.toString()).answer).error)).toMatch(/ECONNREFUSED/);
  });

  // Rounds without end: this fit would run for hours.
  const endlessFit = { algorithm: 'gbdt', search: false, options: { maxTrees: 10_000_000, earlyStoppingPatience: 10_000_000, learningRate: 1e-6 } };

  it('stops a run whose worker was killed, though its fit would run on', async () => {
    const { child } = parent({ fit: endlessFit });
    const run = await eventually('the training process', () => childrenOf(child.pid as number).at(0));
    runs.push(run);
    // Well past start-up (loading the training code takes 1-2 CPU s) and the matrix's build: fitting.
    await eventually('the fit to be under way', () => (processCpuSeconds(run) >= 5 ? true : undefined));
    child.kill('SIGKILL');
    await eventually('the orphaned training process to stop', () => (isRunning(run) ? undefined : true), 15_000);
  });

  it('stops a run whose worker was killed while the process still loaded its code', async () => {
    const { child } = parent({ fit: endlessFit });
    const run = await eventually('the training process', () => childrenOf(child.pid as number).at(0));
    runs.push(run);
    // Killed at once: the process has its new parent before it starts watching for one (the question and
    // the worker's pid already sent), and would otherwise read the matrix and fit without end.
    child.kill('SIGKILL');
    await eventually('the orphaned training process to stop', () => (isRunning(run) ? undefined : true), 15_000);
  });
});
