import type { ActiveUser, StoredUserId } from '@foresight/events';
import { UserChunks } from './user-chunks';

const user = (id: string) => id as StoredUserId;
const active = (id: string, events = 0): ActiveUser => ({
  user: user(id),
  history: Array.from({ length: events }, (_, i) => ({ occurredAt: i, event: 'click', sessionId: null, screen: null, dwellMs: null, hesitationMs: null, scrollDepth: null, numbers: null, strings: null })),
  firstSeenAt: 0,
  revisionToKeep: undefined,
});

describe('UserChunks', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /** Chunks whose stages log when they start and end; committing is slower than scoring, as with a database write. */
  function logged(users: number, fail: { score?: string; commit?: string } = {}, events = 1_000) {
    const log: string[] = [];
    const chunks = new UserChunks<string[]>({ users, events }, {
      score: async (users) => {
        const ids = users.map((u) => u.user as string);
        log.push(`score ${ids[0]}`);
        await sleep(5);
        if (ids[0] === fail.score) throw new Error('features failed');
        log.push(`scored ${ids[0]}`);
        return ids;
      },
      commit: async (ids) => {
        log.push(`commit ${ids[0]}`);
        await sleep(20);
        if (ids[0] === fail.commit) throw new Error('copy refused');
        log.push(`committed ${ids.join('')}`);
      },
    });
    return { chunks, log, at: (entry: string) => log.indexOf(entry) };
  }

  it('scores a chunk while the one before it commits, and commits chunks in cursor order', async () => {
    const { chunks, log, at } = logged(2);
    for (const id of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) await chunks.add(active(id));
    await chunks.end();
    expect(log.filter((entry) => entry.startsWith('committed'))).toEqual(['committed ab', 'committed cd', 'committed ef', 'committed g']);
    // c's chunk is scored while a's commits: the pipeline overlaps this process's work with the database's.
    expect(at('score c')).toBeGreaterThan(at('scored a'));
    expect(at('score c')).toBeLessThan(at('committed ab'));
    // Each commit waits for the one before it and for its own scoring.
    expect(at('commit c')).toBeGreaterThan(at('committed ab'));
    expect(at('commit c')).toBeGreaterThan(at('scored c'));
    // At most three chunks at once: e's is scored only once a's has committed.
    expect(at('score e')).toBeGreaterThan(at('committed ab'));
  });

  it('hands over nothing more at the end when the users filled whole chunks, or there were none', async () => {
    const { chunks, log } = logged(2);
    await chunks.end();
    await chunks.add(active('a'));
    await chunks.add(active('b'));
    await chunks.end();
    expect(log).toEqual(['score a', 'scored a', 'commit a', 'committed ab']);
  });

  it("fails a later hand-over, or the end, with a chunk's failure, and commits no chunk after it", async () => {
    const failingScore = logged(1, { score: 'a' });
    await failingScore.chunks.add(active('a'));
    await expect(failingScore.chunks.add(active('b'))).rejects.toThrow('features failed');
    expect(failingScore.log).not.toContain('commit a');

    const failingCommit = logged(1, { commit: 'b' });
    let failure: unknown;
    try {
      for (const id of ['a', 'b', 'c', 'd', 'e']) await failingCommit.chunks.add(active(id));
      await failingCommit.chunks.end();
    } catch (error) {
      failure = error;
    }
    expect(failure).toEqual(new Error('copy refused'));
    await failingCommit.chunks.settled();
    expect(failingCommit.log.filter((entry) => entry.startsWith('committed'))).toEqual(['committed a']);
  });

  it('ends a chunk early once its users hold the events limit, so very active users do not raise its memory', async () => {
    const { chunks, log } = logged(4, {}, 10);
    // a + b hold 10 events: their chunk ends there; c alone holds more than the limit and still makes a chunk; d + e + f + g fill 4 users.
    for (const [id, events] of [['a', 4], ['b', 6], ['c', 25], ['d', 1], ['e', 1], ['f', 1], ['g', 1], ['h', 0]] as const) await chunks.add(active(id, events));
    await chunks.end();
    expect(log.filter((entry) => entry.startsWith('committed'))).toEqual(['committed ab', 'committed c', 'committed defg', 'committed h']);
  });

  it('refuses limits that are not whole numbers of at least 1', () => {
    const stages = { score: async () => undefined, commit: async () => undefined };
    for (const limit of [0, -1, 1.5, Number.NaN]) {
      expect(() => new UserChunks({ users: limit, events: 10 }, stages)).toThrow(/users limit/);
      expect(() => new UserChunks({ users: 10, events: limit }, stages)).toThrow(/events limit/);
    }
  });
});
