import type { ActiveUser, StoredUserId } from '@foresight/events';

/**
 * Groups the cursor's users into chunks of `size` (the unit of inference, writing and checkpoint).
 * One chunk is in flight while the cursor reads the next: a full chunk waits for the one before it
 * to finish (so chunks commit, and the checkpoint moves, in cursor order), then starts without being
 * waited for. Memory stays bounded by two chunks. `end` hands over the last, partial chunk and waits
 * for everything; a failed chunk fails the next `add` or `end`.
 */
export class UserChunks {
  private users: ActiveUser[] = [];
  private inFlight: Promise<void> | undefined;

  constructor(
    private readonly size: number,
    private readonly onChunk: (users: ActiveUser[]) => Promise<void>,
  ) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`chunk size must be a whole number of at least 1, got ${size}`);
  }

  add(user: ActiveUser): Promise<void> | undefined {
    this.users.push(user);
    return this.users.length >= this.size ? this.handOver() : undefined;
  }

  async end(): Promise<void> {
    if (this.users.length > 0) await this.handOver();
    await this.inFlight;
  }

  /** Waits for the chunk in flight, whatever its outcome (a failed cursor must not leave one committing behind a retry). */
  async settled(): Promise<void> {
    await this.inFlight?.catch(() => undefined);
  }

  private async handOver(): Promise<void> {
    const chunk = this.users;
    this.users = [];
    await this.inFlight;
    const started = this.onChunk(chunk);
    // Observed here, awaited by the next hand-over or `end`: a failure meanwhile is no unhandled rejection.
    started.catch(() => undefined);
    this.inFlight = started;
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
