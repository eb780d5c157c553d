import type { StoredUserId, UserEvent } from '@foresight/events';

/** A user read from the cursor, with their events of the feature window (oldest first). */
export interface ChunkUser {
  user: StoredUserId;
  history: UserEvent[];
}

/**
 * Groups the cursor's users into chunks of `size` (the unit of inference, writing and checkpoint):
 * `add` hands a full chunk to `onChunk` and waits for it, so the cursor reads no further meanwhile
 * and memory stays bounded by one chunk; `end` hands over the last, partial one.
 */
export class UserChunks {
  private users: ChunkUser[] = [];

  constructor(
    private readonly size: number,
    private readonly onChunk: (users: ChunkUser[]) => Promise<void>,
  ) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`chunk size must be a whole number of at least 1, got ${size}`);
  }

  add(user: StoredUserId, history: UserEvent[]): Promise<void> | undefined {
    this.users.push({ user, history });
    return this.users.length >= this.size ? this.flush() : undefined;
  }

  end(): Promise<void> | undefined {
    return this.users.length > 0 ? this.flush() : undefined;
  }

  private flush(): Promise<void> {
    const chunk = this.users;
    this.users = [];
    return this.onChunk(chunk);
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
