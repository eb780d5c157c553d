interface Waiting<Item, Answer> {
  item: Item;
  resolve: (answer: Answer) => void;
  reject: (error: unknown) => void;
}

/**
 * Calls made in the same turn of the event loop, grouped by key and answered together on the next
 * turn by one call of `settle` (one database read, one ONNX Runtime run, one Redis script for all of
 * them). Under load, the requests whose sockets were read in one turn share that work; a call alone
 * waits for no one, as its group settles on the very next turn. `settle` answers each item in the
 * order given; when it throws, every call of the group is rejected with its error.
 */
export class SameTurnBatches<Key, Item, Answer> {
  private readonly waiting = new Map<Key, Array<Waiting<Item, Answer>>>();

  constructor(private readonly settle: (key: Key, items: Item[]) => Promise<Answer[]> | Answer[]) {}

  add(key: Key, item: Item): Promise<Answer> {
    return new Promise((resolve, reject) => {
      let group = this.waiting.get(key);
      if (!group) {
        group = [];
        this.waiting.set(key, group);
        setImmediate(() => void this.settleGroup(key));
      }
      group.push({ item, resolve, reject });
    });
  }

  private async settleGroup(key: Key): Promise<void> {
    const group = this.waiting.get(key) ?? [];
    this.waiting.delete(key);
    try {
      const answers = await this.settle(key, group.map((waiting) => waiting.item));
      group.forEach((waiting, i) => waiting.resolve(answers[i]));
    } catch (error) {
      for (const waiting of group) waiting.reject(error);
    }
  }
}
