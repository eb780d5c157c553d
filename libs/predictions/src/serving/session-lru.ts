import { LRUCache } from 'lru-cache';

/** What the LRU holds of a loaded value: the value and the bytes it is estimated to hold. */
export interface Sized<V> {
  value: V;
  bytes: number;
}

interface Entry<V> extends Sized<V> {
  /** Runs using the value now: a value dropped from the LRU is released when the last one ends. */
  users: number;
  dropped: boolean;
}

/** What the LRU holds at a moment, for the metrics. */
export interface LruFigures {
  entries: number;
  bytes: number;
  /** Bytes dropped from the LRU but still used by a run (released when it ends). */
  drainingBytes: number;
}

/**
 * Releasable values (ONNX Runtime sessions) kept within a byte budget, least recently used dropped
 * first (lru-cache). A value dropped while runs use it (reference counted) is released when the last
 * of them ends, never under a run: the budget is exceeded by at most the values in-flight runs hold.
 */
export class SessionLru<V extends { release(): Promise<void> }> {
  private readonly lru: LRUCache<string, Entry<V>>;
  private drainingBytes = 0;
  /** Loads under way, so concurrent misses of a key load it once. */
  private readonly loading = new Map<string, Promise<Entry<V>>>();

  constructor(
    private readonly budgetBytes: number,
    private readonly observe: { evicted(bytes: number): void; changed(figures: LruFigures): void },
  ) {
    this.lru = new LRUCache<string, Entry<V>>({
      maxSize: budgetBytes,
      sizeCalculation: (entry) => entry.bytes,
      dispose: (entry, _key, reason) => {
        if (reason === 'evict') this.observe.evicted(entry.bytes);
        this.drop(entry);
      },
    });
  }

  /** The key's value without counting as a use (no recency change); undefined unless held. */
  peek(key: string): V | undefined {
    return this.lru.peek(key)?.value;
  }

  has(key: string): boolean {
    return this.lru.has(key);
  }

  /**
   * Runs `work` on the key's value: the held one, else one `load` gives, kept if it fits the budget
   * (dropping the least recently used). The value is not released before `work` settles.
   */
  async use<T>(key: string, load: () => Promise<Sized<V>>, work: (value: V) => Promise<T>): Promise<T> {
    const entry = this.lru.get(key) ?? (await this.loadOnce(key, load));
    entry.users++;
    try {
      return await work(entry.value);
    } finally {
      entry.users--;
      if (entry.dropped && entry.users === 0) this.release(entry);
    }
  }

  private loadOnce(key: string, load: () => Promise<Sized<V>>): Promise<Entry<V>> {
    let loading = this.loading.get(key);
    if (!loading) {
      loading = load().then((loaded) => this.add(key, loaded));
      this.loading.set(key, loading);
      void loading.then(
        () => this.loading.delete(key),
        () => this.loading.delete(key),
      );
    }
    return loading;
  }

  /** Keeps a loaded value under `key` (replacing and releasing any other); one larger than the whole budget is used once and released. */
  add(key: string, loaded: Sized<V>): Entry<V> {
    const entry: Entry<V> = { ...loaded, users: 0, dropped: false };
    if (loaded.bytes > this.budgetBytes) {
      // Released after its single use: `use` sees it dropped once its run ends.
      entry.dropped = true;
      this.drainingBytes += entry.bytes;
    } else {
      this.lru.set(key, entry);
    }
    this.report();
    return entry;
  }

  /** Drops the key's value: released now, or when the runs using it end. */
  delete(key: string): void {
    this.lru.delete(key);
    this.report();
  }

  /** Drops every value (shutdown): the idle ones are released now, the others when their runs end. */
  clear(): void {
    this.lru.clear();
    this.report();
  }

  figures(): LruFigures {
    return { entries: this.lru.size, bytes: this.lru.calculatedSize, drainingBytes: this.drainingBytes };
  }

  private drop(entry: Entry<V>): void {
    entry.dropped = true;
    this.drainingBytes += entry.bytes;
    if (entry.users === 0) this.release(entry);
  }

  private release(entry: Entry<V>): void {
    this.drainingBytes -= entry.bytes;
    this.report();
    // A failed release leaves nothing to do: the session is unreachable either way.
    void entry.value.release().catch(() => undefined);
  }

  private report(): void {
    this.observe.changed(this.figures());
  }
}
