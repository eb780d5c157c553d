import { type KeyValueStore, memoryStore } from '@foresight/sdk-core';

const PREFIX = 'foresight:';

/**
 * localStorage under one prefix. Browsers throw on access in some private modes and sandboxed
 * frames, and on writes when the quota is full: the SDK then keeps working for this page only.
 */
export function browserStore(): KeyValueStore {
  let storage: Storage;
  try {
    storage = window.localStorage;
  } catch {
    return memoryStore();
  }
  return {
    get: (key) => attempt(() => storage.getItem(PREFIX + key), null),
    set: (key, value) => attempt(() => storage.setItem(PREFIX + key, value), undefined),
    remove: (key) => attempt(() => storage.removeItem(PREFIX + key), undefined),
  };
}

function attempt<T>(work: () => T, fallback: T): T {
  try {
    return work();
  } catch {
    return fallback;
  }
}
