import type { StoredUserId, UserEvent } from '@foresight/events';
import { labelChanges, previousLabelKey, UserChunks } from './user-chunks';

const user = (id: string) => id as StoredUserId;
const history: UserEvent[] = [];

describe('UserChunks', () => {
  it('hands over full chunks in cursor order, waits for each, and the partial last one at the end', async () => {
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
      await chunks.add(user(id), history);
    }
    await chunks.end();
    expect(seen).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    // The cursor reads no further while a chunk is scored and written: its checkpoint is the chunk's last user.
    expect(order).toEqual(['add a', 'add b', 'start a', 'end a', 'add c', 'add d', 'start c', 'end c', 'add e', 'start e', 'end e']);
  });

  it('hands over nothing at the end when the users filled whole chunks, or there were none', async () => {
    const seen: number[] = [];
    const chunks = new UserChunks(2, async (users) => void seen.push(users.length));
    expect(chunks.end()).toBeUndefined();
    await chunks.add(user('a'), history);
    await chunks.add(user('b'), history);
    expect(chunks.end()).toBeUndefined();
    expect(seen).toEqual([2]);
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
