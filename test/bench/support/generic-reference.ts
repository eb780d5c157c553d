// The generic-features reference of bench:train: what a data scientist who never saw the generator
// fits with scikit-learn (generic_features.py) on the same users' raw events, at the same cutoffs, with
// the same labels and the same train / tuning / validation split as Foresight's matrix.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { EventPayloadCipherService } from '@foresight/events';
import { FEATURE_WINDOW_DAYS } from '@foresight/features';
import { isValidationUser, type TrainingPlan } from '@foresight/models';
import { type AppConfig, DAY_MS, Encryptor } from '@foresight/platform';
import type { TestSuite } from '../../support/suite';

const SCRIPT = join(__dirname, 'generic_features.py');

/** One learner's validation metrics, as every learner of bench:train reports them. */
export interface LearnerResult {
  auc: number;
  logLoss: number;
  calibrationError: number;
  fitSeconds: number;
}

export interface GenericReference {
  learners: Record<'generic HistGB' | 'generic LogReg', LearnerResult>;
  features: number;
}

type RowPart = 'train' | 'tuning' | 'validation';

export interface ReferenceTarget {
  organizationId: string;
  targetEvent: string;
  plan: TrainingPlan;
}

export interface ReferenceRow {
  userId: string;
  cutoff: number;
  label: boolean;
  part: RowPart;
}

/**
 * The rows of Foresight's plan, by DatasetBuilder's rules: a user counts at a cutoff when seen
 * before it in the events training reads (from FEATURE_WINDOW_DAYS before the window); validation users at the holdout cutoffs validate, the other users train at
 * the training cutoffs and tune at the holdout ones; the label is the target within the horizon after it.
 */
export async function referenceRows(suite: TestSuite, target: ReferenceTarget): Promise<ReferenceRow[]> {
  const { plan } = target;
  const rows: ReferenceRow[] = [];
  const parts: Array<[number[], (validation: boolean) => RowPart | null]> = [
    [plan.trainCutoffs, (validation) => (validation ? null : 'train')],
    [plan.validationCutoffs, (validation) => (validation ? 'validation' : 'tuning')],
  ];
  for (const [cutoffs, partOf] of parts) {
    for (const cutoff of cutoffs) {
      const users = await suite.sql<{ user_id: string; label: boolean }>(
        `SELECT coalesce(e.user_id, i.user_id) AS user_id,
                bool_or(e.event = $2 AND e.occurred_at >= $3 AND e.occurred_at < $4) AS label
           FROM events e LEFT JOIN identities i ON e.user_id IS NULL AND i.organization_id = e.organization_id AND i.anonymous_id = e.anonymous_id
          WHERE e.organization_id = $1 AND coalesce(e.user_id, i.user_id) IS NOT NULL
          GROUP BY 1
         HAVING bool_or(e.occurred_at >= $5 AND e.occurred_at < $3)`,
        [target.organizationId, target.targetEvent, new Date(cutoff), new Date(cutoff + plan.horizonMs), new Date(plan.windowStart - FEATURE_WINDOW_DAYS * DAY_MS)],
      );
      for (const user of users) {
        const part = partOf(isValidationUser(user.user_id));
        if (part) rows.push({ userId: user.user_id, cutoff, label: user.label, part });
      }
    }
  }
  return rows;
}

/** Exports the organization's events (properties decrypted) up to the plan's end and fits the generic learners on `rows`. */
export async function genericReference(suite: TestSuite, config: AppConfig, python: string, threads: number, target: ReferenceTarget, rows: readonly ReferenceRow[]): Promise<GenericReference> {
  const directory = mkdtempSync(join(tmpdir(), 'foresight-bench-generic-'));
  try {
    await exportEvents(suite, config, target, join(directory, 'events.tsv'));
    writeFileSync(join(directory, 'rows.tsv'), rows.map((row) => `${row.userId}\t${row.cutoff}\t${row.label ? 1 : 0}\t${row.part}\n`).join(''));
    const output = execFileSync(python, [SCRIPT, directory, String(threads), String(target.plan.validationCutoffs[0])], { encoding: 'utf8', maxBuffer: 1 << 24 });
    return JSON.parse(output) as GenericReference;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** One line per event up to the plan's end: user, epoch ms, session, event name, properties JSON (psql COPY streams, so memory stays flat). */
async function exportEvents(suite: TestSuite, config: AppConfig, target: ReferenceTarget, path: string): Promise<void> {
  const cipher = new EventPayloadCipherService(new Encryptor([config.encryptionKey, ...config.previousEncryptionKeys].map((key) => Buffer.from(key.reveal(), 'hex'))));
  const query = `COPY (
    SELECT coalesce(e.user_id, i.user_id), (extract(epoch FROM e.occurred_at) * 1000)::bigint, coalesce(e.session_id, ''), e.event, e.message_id,
           coalesce(e.properties, ''), coalesce(e.encryption_key_id, '')
      FROM events e LEFT JOIN identities i ON e.user_id IS NULL AND i.organization_id = e.organization_id AND i.anonymous_id = e.anonymous_id
     WHERE e.organization_id = '${target.organizationId}' AND coalesce(e.user_id, i.user_id) IS NOT NULL AND e.occurred_at < to_timestamp(${target.plan.windowEnd / 1000})
     ORDER BY 1, 2) TO STDOUT`;
  const psql = spawn('psql', [suite.env.DATABASE_URL, '-X', '-q', '-c', query], { stdio: ['ignore', 'pipe', 'inherit'] });
  // Listened for before reading: psql may exit while the last lines are still being written.
  const exited = once(psql, 'close') as Promise<[number | null]>;
  const out = createWriteStream(path);
  for await (const line of createInterface({ input: psql.stdout })) {
    const [user, at, session, event, messageId, sealed, keyId] = line.split('\t');
    const properties = sealed ? cipher.open(target.organizationId, messageId, 'properties', sealed, keyId || null) : null;
    await write(out, `${user}\t${at}\t${session}\t${event}\t${JSON.stringify(properties ?? {})}\n`);
  }
  const [code] = await exited;
  out.end();
  await once(out, 'close');
  if (code !== 0) throw new Error(`psql COPY of the events exited with ${code}`);
}

async function write(stream: WriteStream, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream, 'drain');
}
