import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ShardedScoring1764810000000 implements MigrationInterface {
  name = 'ShardedScoring1764810000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Every shard of a run reads as of the run's cutoff (fixed when the run is split), whichever
    // worker takes it and whenever. The run's checkpoint moves to its shards.
    await queryRunner.query(`ALTER TABLE scoring_runs ADD COLUMN cutoff timestamptz, DROP COLUMN checkpoint_user_id`);
    // One row per shard of a run: a range of hashtext(user id), its own checkpoint (user id order
    // within the range) and counts, and the lock token of the queue job that owns it now. Every
    // write of a shard compares lock_token in the same statement: a worker that lost the job's lock
    // (another took the shard over) writes nothing more.
    await queryRunner.query(`
      CREATE TABLE scoring_run_shards (
        organization_id text NOT NULL,
        run_id text NOT NULL,
        shard integer NOT NULL,
        hash_from integer NOT NULL,
        hash_to integer NOT NULL,
        state text NOT NULL DEFAULT 'queued',
        lock_token text,
        checkpoint_user_id text,
        scored integer NOT NULL DEFAULT 0,
        changed integer NOT NULL DEFAULT 0,
        total integer,
        PRIMARY KEY (organization_id, run_id, shard)
      )`);
    // The prediction.updated announcements of a shard's committed chunks (an outbox): written in
    // the chunk's transaction, removed once published. A shard taken over publishes what its
    // predecessor left, under the same event ids. (Replaced by the domain events' outbox:
    // ScoringAnnouncementsToOutbox1765200000000 moves what is left there and drops the table.)
    await queryRunner.query(`
      CREATE TABLE scoring_announcements (
        organization_id text NOT NULL,
        event_key text NOT NULL,
        run_id text NOT NULL,
        shard integer NOT NULL,
        user_id text NOT NULL,
        data jsonb NOT NULL,
        PRIMARY KEY (organization_id, event_key)
      )`);
    await queryRunner.query(`CREATE INDEX scoring_announcements_shard_idx ON scoring_announcements (organization_id, run_id, shard)`);
    await queryRunner.query(`CREATE INDEX scoring_announcements_user_idx ON scoring_announcements (organization_id, user_id)`);
    // The lock token of the training job that owns the model's run: storing a version compares it under a row lock.
    await queryRunner.query(`ALTER TABLE models ADD COLUMN training_lock_token text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE models DROP COLUMN training_lock_token`);
    await queryRunner.query(`DROP TABLE scoring_announcements`);
    await queryRunner.query(`DROP TABLE scoring_run_shards`);
    await queryRunner.query(`ALTER TABLE scoring_runs DROP COLUMN cutoff, ADD COLUMN checkpoint_user_id text`);
  }
}
