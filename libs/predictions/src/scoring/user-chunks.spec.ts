import type { ActiveUser, StoredUserId } from '@foresight/events';
import { labelChanges, previousLabelKey, UserChunks } from './user-chunks';

const user = (id: string) => id as StoredUserId;
const active = (id: string): ActiveUser => ({ user: user(id), history: [], firstSeenAt: 0, revisionToKeep: undefined });

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Stages that log what they do: computing takes `computeMs`, committing `commitMs`. */
function loggingStages(log: string[], computeMs: number, commitMs: number, fail?: { compute?: string; commit?: string }) {
  return {
    compute: async (users: ActiveUser[]) => {
      const first = users[0].user;
      log.push(`compute ${first}`);
      await pause(computeMs);
      if (fail?.compute === first) throw new Error('features refused');
      return users.map((u) => u.user).join('');
    },
    commit: async (computed: string, users: ActiveUser[]) => {
      log.push(`commit ${computed} (${users.length})`);
      await pause(commitMs);
      if (fail?.commit === computed) throw new Error('copy refused');
      log.push(`committed ${computed}`);
    },
  };
}

describe('UserChunks', () => {
  it('computes a chunk while the one before it commits, and commits chunks one at a time in cursor order', async () => {
    const log: string[] = [];
    const chunks = new UserChunks(2, loggingStages(log, 1, 20));
    for (const id of ['a', 'b', 'c', 'd', 'e']) await chunks.add(active(id));
    await chunks.end();
    const commits = log.filter((line) => line.startsWith('commit'));
    expect(commits).toEqual(['commit ab (2)', 'committed ab', 'commit cd (2)', 'committed cd', 'commit e (1)', 'committed e']);
    // cd is computed while ab commits.
    expect(log.indexOf('compute c')).toBeLessThan(log.indexOf('committed ab'));
  });

  it('lets a chunk compute only once the chunk before the previous one has committed', async () => {
    const log: string[] = [];
    const chunks = new UserChunks(1, loggingStages(log, 0, 15));
    for (const id of ['a', 'b', 'c', 'd']) await chunks.add(active(id));
    await chunks.end();
    expect(log.indexOf('compute c')).toBeGreaterThan(log.indexOf('committed a'));
    expect(log.indexOf('compute d')).toBeGreaterThan(log.indexOf('committed b'));
  });

  it('hands over nothing more at the end when the users filled whole chunks, or there were none', async () => {
    const log: string[] = [];
    const chunks = new UserChunks(2, loggingStages(log, 0, 0));
    await chunks.end();
    await chunks.add(active('a'));
    await chunks.add(active('b'));
    await chunks.end();
    expect(log.filter((line) => line.startsWith('commit '))).toEqual(['commit ab (2)']);
  });

  it("fails a later hand-over, or the end, with a stage's failure, and commits no chunk after it", async () => {
    const computeLog: string[] = [];
    const failingCompute = new UserChunks(1, loggingStages(computeLog, 0, 0, { compute: 'a' }));
    await failingCompute.add(active('a'));
    await expect(failingCompute.add(active('b'))).rejects.toThrow('features refused');
    await failingCompute.settled();
    expect(computeLog.filter((line) => line.startsWith('commit'))).toEqual([]);

    const commitLog: string[] = [];
    const failingCommit = new UserChunks(1, loggingStages(commitLog, 0, 5, { commit: 'a' }));
    await failingCommit.add(active('a'));
    await failingCommit.add(active('b'));
    await expect(failingCommit.add(active('c'))).rejects.toThrow('copy refused');
    await failingCommit.settled();
    expect(commitLog.filter((line) => line.startsWith('commit'))).toEqual(['commit a (1)']);

    const failingLast = new UserChunks(1, loggingStages([], 0, 0, { commit: 'a' }));
    await failingLast.add(active('a'));
    await expect(failingLast.end()).rejects.toThrow('copy refused');
  });

  it('refuses a chunk size that is not a whole number of at least 1', () => {
    for (const size of [0, -1, 1.5, Number.NaN]) expect(() => new UserChunks(size, loggingStages([], 0, 0))).toThrow(/chunk size/);
  });
});

describe('labelChanges', () => {
  const previous = new Map([
    [previousLabelKey('u1', 'mdl_a'), 'unlikely'],
    [previousLabelKey('u2', 'mdl_a'), 'likely'],
    [previousLabelKey('u1', 'mdl_b'), 'likely'],
  ]);

  it("finds the labels that differ from the user's previous latest label of the same model", () => {
    const scored = [
      { user: user('u1'), modelId: 'mdl_a', label: 'likely' },
      { user: user('u2'), modelId: 'mdl_a', label: 'likely' },
      { user: user('u1'), modelId: 'mdl_b', label: 'unlikely' },
    ];
    expect(labelChanges(scored, previous)).toEqual([
      { user: 'u1', modelId: 'mdl_a', label: 'likely', previousLabel: 'unlikely' },
      { user: 'u1', modelId: 'mdl_b', label: 'unlikely', previousLabel: 'likely' },
    ]);
  });

  it('reports no change for a user the model never predicted for, nor for another model of the same user', () => {
    expect(labelChanges([{ user: user('u3'), modelId: 'mdl_a', label: 'likely' }, { user: user('u2'), modelId: 'mdl_b', label: 'unlikely' }], previous)).toEqual([]);
  });
});
