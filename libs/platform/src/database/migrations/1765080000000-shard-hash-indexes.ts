import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ShardHashIndexes1765080000000 implements MigrationInterface {
  name = 'ShardHashIndexes1765080000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // A bulk scoring shard picks its users by a range of hashtext(user id) (active-users.sql.ts):
    // with these, a shard reads its own rows only, so a run cut into many shards (an even share per
    // worker) reads each row once instead of scanning the organization's rows once per shard.
    await queryRunner.query(`CREATE INDEX user_activity_shard_idx ON user_activity (organization_id, hashtext(user_id))`);
    await queryRunner.query(`CREATE INDEX user_windows_shard_idx ON user_windows (organization_id, hashtext(user_id))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX user_windows_shard_idx`);
    await queryRunner.query(`DROP INDEX user_activity_shard_idx`);
  }
}
