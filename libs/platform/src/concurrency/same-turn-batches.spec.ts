import { SameTurnBatches } from './same-turn-batches';

describe('SameTurnBatches', () => {
  it('settles the calls of one turn once per key, each call with its own answer, in the order made', async () => {
    const settled: Array<[string, number[]]> = [];
    const batches = new SameTurnBatches<string, number, string>((key, items) => {
      settled.push([key, items]);
      return items.map((item) => `${key}:${item * 10}`);
    });
    const answers = await Promise.all([batches.add('a', 1), batches.add('b', 2), batches.add('a', 3), batches.add('a', 4)]);
    expect(answers).toEqual(['a:10', 'b:20', 'a:30', 'a:40']);
    expect(settled).toEqual([
      ['a', [1, 3, 4]],
      ['b', [2]],
    ]);
  });

  it('settles a call alone on the next turn, and calls of later turns apart', async () => {
    const sizes: number[] = [];
    const batches = new SameTurnBatches<'k', number, number>(async (_, items) => {
      sizes.push(items.length);
      return items;
    });
    expect(await batches.add('k', 7)).toBe(7);
    expect(await Promise.all([batches.add('k', 8), batches.add('k', 9)])).toEqual([8, 9]);
    expect(sizes).toEqual([1, 2]);
  });

  it('rejects every call of a group whose settling failed, and later groups still settle', async () => {
    let fail = true;
    const batches = new SameTurnBatches<'k', number, number>(async (_, items) => {
      if (fail) throw new Error('read refused');
      return items;
    });
    const failed = await Promise.allSettled([batches.add('k', 1), batches.add('k', 2)]);
    expect(failed.map((answer) => answer.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    await expect(batches.add('k', 3)).resolves.toBe(3);
  });
});
