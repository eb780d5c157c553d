import { type BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { StoredUserId } from '@foresight/events';
import { APP_CONFIG, type AppConfig, isRowRefusal, LOGGER, type Logger, SqlExecutor } from '@foresight/platform';
import { readLatestLabels } from './latest-labels';
import { type LoggedPrediction, storePredictions } from './prediction-rows';

const FLUSH_INTERVAL_MS = 200;
const FLUSH_ROWS = 1_000;
/** Beyond this (Postgres down for a long time), the oldest buffered rows are dropped and counted in the log. */
const MAX_BUFFERED_ROWS = 100_000;

/**
 * The prediction log: served predictions are buffered and written in batches (one COPY per flush,
 * storePredictions), off the request path. Buffered rows are flushed on graceful shutdown.
 */
@Injectable()
export class PredictionLogService implements BeforeApplicationShutdown {
  private buffer: LoggedPrediction[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  private readonly embedded: boolean;

  constructor(
    private readonly dataSource: DataSource,
    private readonly sql: SqlExecutor,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.embedded = config.embedded;
  }

  record(rows: LoggedPrediction[]): void {
    this.buffer.push(...rows);
    if (this.buffer.length > MAX_BUFFERED_ROWS) {
      const dropped = this.buffer.length - MAX_BUFFERED_ROWS;
      this.buffer.splice(0, dropped);
      this.logger.error({ dropped }, 'prediction log buffer full: oldest rows dropped');
    }
    if (this.buffer.length >= FLUSH_ROWS) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_INTERVAL_MS);
  }

  /** Writes everything buffered so far; flushes run one at a time, in order. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writeBuffered());
    return this.flushing;
  }

  /** readLatestLabels, after this process's buffered rows are written. */
  async latestLabels(organizationId: string, users: readonly StoredUserId[], modelIds: readonly string[], before?: Date): Promise<Map<string, string>> {
    await this.flush();
    return readLatestLabels(this.sql, organizationId, users, modelIds, before);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.flush();
  }

  private async writeBuffered(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.buffer.length > 0) {
      const batch = this.buffer.splice(0, FLUSH_ROWS);
      const unwritten = await this.write(batch);
      if (unwritten) {
        // Keep the rows and try again later; the request that served them has long been answered.
        this.buffer.unshift(...unwritten.rows);
        this.logger.warn({ err: unwritten.error, rows: this.buffer.length }, 'prediction log write failed; will retry');
        this.timer ??= setTimeout(() => void this.flush(), FLUSH_INTERVAL_MS * 10);
        return;
      }
    }
  }

  /**
   * Writes a batch, or returns what is left to write again later (Postgres unreachable, say). A
   * batch holds many organizations' rows: one Postgres refuses for its content is narrowed down by
   * halves and dropped alone, so it never holds back the others, nor retries forever.
   */
  private async write(batch: LoggedPrediction[]): Promise<{ rows: LoggedPrediction[]; error: unknown } | undefined> {
    try {
      await this.store(batch);
      return undefined;
    } catch (error) {
      if (!isRowRefusal(error)) return { rows: batch, error };
      if (batch.length === 1) {
        this.logger.error({ err: error, modelId: batch[0].modelId }, 'prediction log row refused by Postgres; dropped');
        return undefined;
      }
      const half = Math.ceil(batch.length / 2);
      const first = await this.write(batch.slice(0, half));
      if (first) return { rows: [...first.rows, ...batch.slice(half)], error: first.error };
      return this.write(batch.slice(half));
    }
  }

  /** One statement in a transaction of its own (COPY needs a connection to itself: the transaction's). */
  private async store(batch: LoggedPrediction[]): Promise<void> {
    await this.dataSource.transaction((manager) => storePredictions(this.sql, manager, batch, this.embedded));
  }
}
