import AsyncStorage from '@react-native-async-storage/async-storage';
import { AppState } from 'react-native';
import { type ClientOptions, ReactNativeClient } from './client';
import { LIBRARY } from './library';
import { type NavigationRefLike, screenTracking as trackingProps } from './navigation';
import { type AsyncStorageLike, loadPersistentStore } from './persistent-store';

export { type AppStateLike, type ClientOptions, type Platform, ReactNativeClient } from './client';
export type { NavigationRefLike } from './navigation';
export { type AsyncStorageLike, loadPersistentStore, type PersistentStore } from './persistent-store';

export interface InitializeOptions extends ClientOptions {
  /** Where the queue, identity and consent are kept. Default: @react-native-async-storage/async-storage. */
  storage?: AsyncStorageLike;
}

let client: ReactNativeClient | undefined;
let starting: Promise<ReactNativeClient> | undefined;
/** Calls made before storage was read, replayed in order once it is. */
const early: Array<(started: ReactNativeClient) => void> = [];

function call(work: (started: ReactNativeClient) => void): void {
  if (client) work(client);
  else early.push(work);
}

/**
 * Starts the SDK with an ingest-only token; later calls are ignored. Calls made before it resolves
 * are kept and run once the stored queue, identity and consent are loaded.
 */
function initialize(token: string, options: InitializeOptions): Promise<void> {
  if (typeof token !== 'string' || token.length === 0) throw new TypeError('Foresight.initialize needs an ingest token');
  if (typeof options?.host !== 'string' || options.host.length === 0) throw new TypeError('Foresight.initialize needs options.host, the API address');
  starting ??= loadPersistentStore(options.storage ?? AsyncStorage).then((store) => {
    const warn = (message: string) => console.warn(`Foresight: ${message}`);
    const post = (url: string, body: string, headers: Record<string, string>) => fetch(url, { method: 'POST', headers, body });
    const started = new ReactNativeClient(token, options, { store, appState: AppState, post, library: LIBRARY, warn });
    client = started;
    for (const work of early.splice(0)) work(started);
    return started;
  });
  return starting.then(() => undefined);
}

export const Foresight = {
  initialize,
  track: (event: string, properties?: Record<string, unknown>) => call((c) => c.track(event, properties)),
  identify: (userId: string) => call((c) => c.identify(userId)),
  screen: (name: string, properties?: Record<string, unknown>) => call((c) => c.screen(name, properties)),
  reset: () => call((c) => c.reset()),
  enableTracking: () => call((c) => c.enableTracking()),
  disableTracking: () => call((c) => c.disableTracking()),
  /** Whether tracking is on (the stored consent choice, once initialize() resolved). */
  isTrackingEnabled: (): boolean => client?.trackingEnabled ?? false,
  /** Sends what is queued now; resolves when done. */
  flush: (): Promise<void> => (client ? client.flush() : (starting?.then((c) => c.flush()) ?? Promise.resolve())),
  /** Stops the SDK (timer, AppState listener) once its storage writes are done; initialize() may follow (hot reload). */
  close: async (): Promise<void> => {
    const stopping = starting;
    starting = undefined;
    client = undefined;
    await (await stopping)?.close();
  },
  /** NavigationContainer props reporting every screen reached: `<NavigationContainer ref={ref} {...Foresight.screenTracking(ref)}>`. */
  screenTracking: (ref: NavigationRefLike) => trackingProps(ref, (name) => Foresight.screen(name)),
};

export default Foresight;
