import { type FileHandle, open } from 'node:fs/promises';
import { demoOracleProbability, demoTargets, type DemoTruth } from './demo-oracle';
import type { DemoIntentSignal } from './demo-population';

/** One user in the truth file: the generator's parameters and the oracle at the file's cutoff, per target of the mode. */
export type DemoTruthRecord = DemoTruth & {
  oracle: { cutoff: string; horizonDays: number } & Record<string, number | string>;
};

/** What a JSON truth file says about the whole run (NDJSON files hold only user records). */
export interface DemoTruthHeader {
  seed: number;
  shift: number;
  intentSignal: DemoIntentSignal;
  userPrefix: string;
  days: number;
  now: string;
  cutoff: string;
  horizonDays: number;
}

const FLUSH_BYTES = 1 << 20;

/**
 * Writes the truth as it is generated, so a 50,000-user run never holds it all. `.ndjson` and
 * `.jsonl` paths get one user per line; any other path one JSON document `{...header, users: [...]}`.
 */
export class DemoTruthFile {
  private buffer = '';
  private first = true;
  /** Writes run one after another: FileHandle.write must not overlap on one handle. */
  private writing: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly file: FileHandle,
    private readonly lines: boolean,
    private readonly header: DemoTruthHeader,
  ) {}

  static async create(path: string, header: DemoTruthHeader): Promise<DemoTruthFile> {
    const lines = /\.(ndjson|jsonl)$/i.test(path);
    const file = new DemoTruthFile(await open(path, 'w'), lines, header);
    if (!lines) file.buffer = `${JSON.stringify(header).slice(0, -1)},"users":[\n`;
    return file;
  }

  async add(truth: DemoTruth): Promise<void> {
    const { cutoff, horizonDays, intentSignal } = this.header;
    const oracle: DemoTruthRecord['oracle'] = { cutoff, horizonDays };
    for (const target of demoTargets(intentSignal)) oracle[target] = demoOracleProbability(truth, target, new Date(cutoff), horizonDays);
    const record: DemoTruthRecord = { ...truth, oracle };
    this.buffer += this.lines ? `${JSON.stringify(record)}\n` : `${this.first ? '' : ',\n'}${JSON.stringify(record)}`;
    this.first = false;
    if (this.buffer.length >= FLUSH_BYTES) await this.flush();
  }

  /** Completes the document; `complete: false` (a failed run) only releases the file. */
  async close(complete: boolean): Promise<void> {
    try {
      if (complete) {
        if (!this.lines) this.buffer += '\n]}\n';
        await this.flush();
      }
    } finally {
      await this.file.close();
    }
  }

  /** Takes the buffer before writing, so records added while a write is under way are kept for the next one. */
  private async flush(): Promise<void> {
    const chunk = this.buffer;
    this.buffer = '';
    this.writing = this.writing.then(() => this.file.write(chunk));
    await this.writing;
  }
}
