import type { ActiveUser, StoredUserId } from '@foresight/events';
import { labelChanges, previousLabelKey, UserChunks } from './user-chunks';

const user = (id: string) => id as StoredUserId;
const active = (id: string): ActiveUser => ({ user: user(id), history: [], firstSeenAt: 0, revisionToKeep: undefined });

describe('UserChunks', () => {
  it('scores one chunk while the cursor reads the next, and commits chunks in cursor order', async () => {
    const seen: string[][] = [];
    const order: string[] = [];
    const chunks = new UserChunks(2, async (users) => {
      order.push(`start ${users[0].user}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      seen.push(users.map((u) => u.user));
      order.push(`end ${users[0].user}`);
    });
    for (const id of ['a', 'b', 'c', 'd', 'e']) {
      order.push(`add ${id}`);
      await chunks.add(active(id));
    }
    await chunks.end();
    expect(seen).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    // c and d are read while a's chunk is in flight; c's chunk starts only once a's has finished.
    expect(order).toEqual(['add a', 'add b', 'start a', 'add c', 'add d', 'end a', 'start c', 'add e', 'end c', 'start e', 'end e']);
  });

  it('hands over nothing more at the end when the users filled whole chunks, or there were none', async () => {
    const seen: number[] = [];
    const chunks = new UserChunks(2, async (users) => void seen.push(users.length));
    await chunks.end();
    await chunks.add(active('a'));
    await chunks.add(active('b'));
    await chunks.end();
    expect(seen).toEqual([2]);
  });

  it("fails the next hand-over, or the end, with a chunk's failure", async () => {
    const failing = new UserChunks(1, async (users) => {
      if (users[0].user === 'a') throw new Error('copy refused');
    });
    await failing.add(active('a'));
    await expect(failing.add(active('b'))).rejects.toThrow('copy refused');
    const failingLast = new UserChunks(1, async () => {
      throw new Error('copy refused');
    });
    await failingLast.add(active('a'));
    await expect(failingLast.end()).rejects.toThrow('copy refused');
  });

  it('refuses a chunk size that is not a whole number of at least 1', () => {
    for (const size of [0, -1, 1.5, Number.NaN]) expect(() => new UserChunks(size, async () => undefined)).toThrow(/chunk size/);
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
