import type { ActiveUser, StoredUserId } from '@foresight/events';

/** A chunk's two stages: what this process computes of it, then what it commits of that. */
export interface ChunkStages<Computed> {
  compute(users: ActiveUser[]): Promise<Computed>;
  commit(computed: Computed, users: ActiveUser[]): Promise<void>;
}

/**
 * Groups the cursor's users into chunks of `size` (the unit of inference, writing and checkpoint), each
 * computed, then committed. A chunk computes while the one before it commits (this process's work beside
 * Postgres's), and chunks commit one at a time in cursor order, so the checkpoint moves in that order.
 * The cursor reads on meanwhile; a full chunk waits until the chunk before the previous one has
 * committed and the previous one has computed, so memory stays bounded by three chunks. `end` hands
 * over the last, partial chunk and waits for everything; a failed stage fails the next `add` or `end`,
 * and no chunk after it commits.
 */
export class UserChunks<Computed> {
  private users: ActiveUser[] = [];
  private computing: Promise<Computed> | undefined;
  /** The commit of the last chunk handed over, and of the one before it. */
  private committing: Promise<void> | undefined;
  private committingBefore: Promise<void> | undefined;

  constructor(
    private readonly size: number,
    private readonly stages: ChunkStages<Computed>,
  ) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`chunk size must be a whole number of at least 1, got ${size}`);
  }

  add(user: ActiveUser): Promise<void> | undefined {
    this.users.push(user);
    return this.users.length >= this.size ? this.handOver() : undefined;
  }

  async end(): Promise<void> {
    if (this.users.length > 0) await this.handOver();
    await this.committing;
  }

  /** Waits for the chunks in flight, whatever their outcome (a failed cursor must not leave one committing behind a retry). */
  async settled(): Promise<void> {
    await Promise.allSettled([this.computing, this.committing]);
  }

  private async handOver(): Promise<void> {
    const chunk = this.users;
    this.users = [];
    await Promise.all([this.computing, this.committingBefore]);
    const computed = this.stages.compute(chunk);
    const committed = Promise.all([computed, this.committing]).then(([result]) => this.stages.commit(result, chunk));
    // Observed here, awaited by the next hand-over or `end`: a failure meanwhile is no unhandled rejection.
    computed.catch(() => undefined);
    committed.catch(() => undefined);
    this.computing = computed;
    this.committingBefore = this.committing;
    this.committing = committed;
  }
}

/**
 * The new labels that differ from the user's previous latest label of the same model; a user the
 * model never predicted for has no previous label and so no change (as after new events).
 */
export function labelChanges<T extends { user: StoredUserId; modelId: string; label: string }>(
  scored: readonly T[],
  previous: ReadonlyMap<string, string>,
): Array<T & { previousLabel: string }> {
  return scored.flatMap((row) => {
    const before = previous.get(previousLabelKey(row.user, row.modelId));
    return before !== undefined && before !== row.label ? [{ ...row, previousLabel: before }] : [];
  });
}

/** The key of `labelChanges`'s map of previous labels. */
export function previousLabelKey(user: string, modelId: string): string {
  return `${modelId}\u0000${user}`;
}
