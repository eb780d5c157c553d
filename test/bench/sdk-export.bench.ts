// npm run bench:sdk-export — @foresight/node's predictions.export() iterating 1,000,000 exported
// predictions: peak RSS and rows/s of the client process, beside a raw fetch that only counts the
// newlines of the same NDJSON stream (the baseline) and a client that buffers the whole body, in the
// same run. Flat memory: the SDK's peak RSS stays near the baseline's, and near its own RSS at 10%.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { seededSince, seedPredictionLog } from '../support/prediction-log';
import { startApi } from '../support/processes';
import { benchmark } from './support/benchmark';

const ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 1_000_000);
const MODES = ['raw', 'sdk', 'buffered'] as const;

interface Reading {
  rows: number;
  seconds: number;
  earlyRssMb: number | null;
  peakRssMb: number;
}

benchmark('bench_sdk_export', async (suite) => {
  const { organization, token } = await suite.createOrganization('Bench', ['--rate-limit', '100000000', '--burst', '200000000']);
  await seedPredictionLog(suite, organization.id, ROWS);
  const api = await startApi({ ...suite.env, LOG_LEVEL: 'warn' });
  try {
    const readings = Object.fromEntries(MODES.map((mode) => [mode, read(mode, api.baseUrl, token.secret)])) as Record<(typeof MODES)[number], Reading>;
    for (const mode of MODES) if (readings[mode].rows !== ROWS) throw new Error(`${mode} read ${readings[mode].rows} rows, expected ${ROWS}`);

    const baseline = readings.raw;
    console.log(`\nbench:sdk-export (${ROWS} predictions as NDJSON; client process peak RSS, VmHWM)`);
    console.log(`${'case'.padEnd(58)}${'peak MB'.padStart(9)}${'at 10% MB'.padStart(11)}${'ratio'.padStart(7)}${'rows/s'.padStart(10)}`);
    const line = (name: string, r: Reading) =>
      console.log(
        `${name.padEnd(58)}${r.peakRssMb.toFixed(0).padStart(9)}${(r.earlyRssMb === null ? '-' : r.earlyRssMb.toFixed(0)).padStart(11)}${(r.peakRssMb / baseline.peakRssMb).toFixed(2).padStart(7)}${(r.rows / r.seconds).toFixed(0).padStart(10)}`,
      );
    line('baseline: raw fetch counting newlines (parses nothing)', baseline);
    line('@foresight/node predictions.export() (one object per row)', readings.sdk);
    line('fetch + response.text() + parse every line (buffers all)', readings.buffered);
    console.log('target: SDK peak RSS within 1.5x the baseline and within 1.5x its own RSS at 10% of the rows');
  } finally {
    await api.stop();
  }
});

function read(mode: string, host: string, token: string): Reading {
  const reader = join(__dirname, 'support', 'export-reader.ts');
  const result = spawnSync(process.execPath, ['-r', '@swc-node/register', reader, mode, host, token, seededSince(), String(ROWS)], { encoding: 'utf8', maxBuffer: 1024 * 1024 });
  if (result.status !== 0) throw new Error(`export reader (${mode}) failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as Reading;
}
