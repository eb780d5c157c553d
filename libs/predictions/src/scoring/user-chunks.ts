import type { ActiveUser } from '@foresight/events';

/** The two stages of a chunk: scoring it (this process's CPU), then committing what it scored (the database's part). */
export interface ChunkStages<Scored> {
  score(users: ActiveUser[]): Promise<Scored>;
  commit(scored: Scored): Promise<void>;
}

/** Where a chunk ends: at `users` users, or sooner once their histories hold `events` events (a chunk has at least one user). */
export interface ChunkLimits {
  users: number;
  events: number;
}

/**
 * Groups the cursor's users into chunks (the unit of inference, writing and checkpoint) and runs
 * each chunk's stages as a pipeline: while the cursor reads a chunk, the one before it is scored and
 * the one before that committed, so this process computes while Postgres writes. A chunk is scored
 * once the previous one was scored, and committed once it was scored and the previous one committed:
 * chunks commit, and the checkpoint moves, in cursor order. Memory stays bounded by three chunks,
 * each by its users and by the events of their histories, however active those users were. `end`
 * hands over the last, partial chunk and waits for everything; a failed chunk fails a later `add`,
 * or `end`, and no chunk after it commits.
 */
export class UserChunks<Scored> {
  private users: ActiveUser[] = [];
  private events = 0;
  /** The latest chunk's scoring. */
  private scored: Promise<Scored> | undefined;
  /** The latest chunk's commit, and the one before it. */
  private committed: Promise<void> | undefined;
  private committedBefore: Promise<void> | undefined;

  constructor(
    private readonly limits: ChunkLimits,
    private readonly stages: ChunkStages<Scored>,
  ) {
    for (const [name, limit] of Object.entries(limits)) {
      if (!Number.isInteger(limit) || limit < 1) throw new Error(`a chunk's ${name} limit must be a whole number of at least 1, got ${limit}`);
    }
  }

  add(user: ActiveUser): Promise<void> | undefined {
    this.users.push(user);
    this.events += user.history.length;
    return this.users.length >= this.limits.users || this.events >= this.limits.events ? this.handOver() : undefined;
  }

  async end(): Promise<void> {
    if (this.users.length > 0) await this.handOver();
    await this.committed;
  }

  /** Waits for every chunk handed over, whatever its outcome (a failed cursor must not leave one committing behind a retry). */
  async settled(): Promise<void> {
    await this.committed?.catch(() => undefined);
  }

  private async handOver(): Promise<void> {
    const chunk = this.users;
    this.users = [];
    this.events = 0;
    // One chunk scoring at a time, and one committing beside it.
    await this.scored;
    await this.committedBefore;
    const scored = this.stages.score(chunk);
    const previous = this.committed;
    const committed = (async () => {
      const result = await scored;
      await previous;
      await this.stages.commit(result);
    })();
    // Observed here, awaited by a later hand-over or `end`: a failure meanwhile is no unhandled rejection.
    scored.catch(() => undefined);
    committed.catch(() => undefined);
    this.scored = scored;
    this.committedBefore = previous;
    this.committed = committed;
  }
}
