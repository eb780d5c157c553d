import type { KeyValueStore } from '@foresight/sdk-core';

/** The part of AsyncStorage the SDK uses; the community package, MMKV wrappers and others have it. */
export interface AsyncStorageLike {
  getItem(key: string): Promise<string | null>;
  setItem(key: string, value: string): Promise<void>;
  removeItem(key: string): Promise<void>;
}

/** Every key the SDK keeps (the core's queue, consent, identity and session). */
const KEYS = ['queue', 'consent', 'anonymousId', 'userId', 'session'];
const PREFIX = '@foresight/';

export interface PersistentStore extends KeyValueStore {
  /** Resolves once every change so far is written. */
  written(): Promise<void>;
}

/**
 * The core reads and writes synchronously; AsyncStorage is asynchronous. So the SDK's keys are read
 * once at start into memory, and every change is written through in order, one at a time. A write
 * that fails is dropped (the copy in memory still holds it); the next change writes the whole value again.
 */
export async function loadPersistentStore(storage: AsyncStorageLike): Promise<PersistentStore> {
  const values = new Map<string, string>();
  await Promise.all(
    KEYS.map(async (key) => {
      const value = await storage.getItem(PREFIX + key).catch(() => null);
      if (value !== null) values.set(key, value);
    }),
  );
  let writes = Promise.resolve();
  const write = (work: () => Promise<void>) => {
    writes = writes.then(work).catch(() => undefined);
  };
  return {
    get: (key) => values.get(key) ?? null,
    set: (key, value) => {
      values.set(key, value);
      write(() => storage.setItem(PREFIX + key, value));
    },
    remove: (key) => {
      values.delete(key);
      write(() => storage.removeItem(PREFIX + key));
    },
    written: () => writes,
  };
}
