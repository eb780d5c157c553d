// The React Native SDK's client without React Native: its platform is what this test hands it (a
// device's storage that outlives the app, an AppState that the test moves, Node's fetch), so these
// modules are imported directly rather than through the package entry, which loads react-native.
import { type AppStateLike, ReactNativeClient } from '../../libs/sdk-react-native/src/client';
import { LIBRARY } from '../../libs/sdk-react-native/src/library';
import { type AsyncStorageLike, loadPersistentStore } from '../../libs/sdk-react-native/src/persistent-store';
import { eventually } from '../support/eventually';
import { cliJson } from '../support/processes';
import { withApiSuite } from '../support/suite';
import { TcpProxy } from '../support/tcp-proxy';

/** A device's AsyncStorage: survives app restarts (new clients over the same instance). */
function deviceStorage(): AsyncStorageLike & { values: Map<string, string> } {
  const values = new Map<string, string>();
  return {
    values,
    getItem: async (key) => values.get(key) ?? null,
    setItem: async (key, value) => void values.set(key, value),
    removeItem: async (key) => void values.delete(key),
  };
}

/** An AppState the test moves between foreground and background. */
function appState(): AppStateLike & { move(state: string): void } {
  const listeners = new Set<(state: string) => void>();
  return {
    currentState: 'active',
    addEventListener: (_type, listener) => {
      listeners.add(listener);
      return { remove: () => void listeners.delete(listener) };
    },
    move(state) {
      this.currentState = state;
      for (const listener of listeners) listener(state);
    },
  };
}

describe('@foresight/react-native client against the real API', () => {
  const t = withApiSuite('sdkrn');
  let ingestToken: string;
  const warnings: string[] = [];
  const running: ReactNativeClient[] = [];

  beforeAll(async () => {
    const created = await cliJson<{ token: { secret: string } }>(t.suite.env, ['token', 'create', '--org', t.org.organization.id, '--env', 'dev', '--scopes', 'ingest']);
    ingestToken = created.token.secret;
  });

  afterEach(async () => {
    await Promise.all(running.splice(0).map((client) => client.close()));
  });

  /** One launch of the app: storage read, client started, its first flush under way. */
  async function launch(storage: AsyncStorageLike, state: AppStateLike, host = t.api.baseUrl, options: { startDisabled?: boolean } = {}) {
    const store = await loadPersistentStore(storage);
    const post = (url: string, body: string, headers: Record<string, string>) => fetch(url, { method: 'POST', headers, body });
    const client = new ReactNativeClient(ingestToken, { host, flushIntervalMs: 3_600_000, ...options }, { store, appState: state, post, library: LIBRARY, warn: (m) => void warnings.push(m) });
    running.push(client);
    return client;
  }

  const stored = async (event: string) => {
    const rows = await t.suite.sql<{ message_id: string; session_id: string; anonymous_id: string; dwell_ms: number | null }>(
      'SELECT message_id, session_id, anonymous_id, dwell_ms FROM events WHERE organization_id = $1 AND event = $2',
      [t.org.organization.id, event],
    );
    return rows;
  };

  it('sends on going to the background: screens with their dwell time, in one session', async () => {
    const state = appState();
    const client = await launch(deviceStorage(), state);
    client.screen('RN Home');
    client.track('rn_add_to_cart', { sku: 'A-1' });
    // Deliberately waited, it is what is tested: a little time on the screen (its dwell), with nothing sent meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await stored('rn_add_to_cart')).toHaveLength(0);
    state.move('background');
    const cart = await eventually('the background flush', async () => (await stored('rn_add_to_cart'))[0]);
    const [view] = await stored('screen_view');
    const [leave] = await stored('screen_leave');
    expect(leave.dwell_ms).toBeGreaterThanOrEqual(50);
    expect(new Set([cart.session_id, view.session_id, leave.session_id]).size).toBe(1);
  });

  it('keeps events queued in storage through a restart while the API was unreachable, and stores each once', async () => {
    const proxy = await TcpProxy.start({ host: '127.0.0.1', port: Number(new URL(t.api.baseUrl).port) });
    try {
      proxy.cut();
      const storage = deviceStorage();
      const state = appState();
      const offline = await launch(storage, state, `http://127.0.0.1:${proxy.port}`);
      for (let n = 0; n < 120; n++) offline.track('rn_offline', { n });
      state.move('background');
      await offline.flush();
      expect(JSON.parse(storage.values.get('@foresight/queue') ?? '[]')).toHaveLength(120);
      await offline.close(); // the app is killed

      proxy.restore();
      const relaunched = await launch(storage, appState(), `http://127.0.0.1:${proxy.port}`);
      await relaunched.flush();
      const rows = await stored('rn_offline');
      expect(rows).toHaveLength(120);
      expect(new Set(rows.map((row) => row.anonymous_id)).size).toBe(1);
      expect(JSON.parse(storage.values.get('@foresight/queue') ?? '[]')).toHaveLength(0);
    } finally {
      await proxy.close();
    }
  });

  it('stores nothing while tracking is disabled, keeps that choice across a restart, and resumes on enable', async () => {
    const storage = deviceStorage();
    const first = await launch(storage, appState());
    first.track('rn_before_opt_out');
    first.disableTracking();
    first.track('rn_while_opted_out');
    await first.flush();
    await first.close();

    const state = appState();
    const second = await launch(storage, state);
    expect(second.trackingEnabled).toBe(false);
    second.track('rn_while_opted_out');
    state.move('background');
    await second.flush();
    second.enableTracking();
    second.track('rn_after_opt_in');
    await second.flush();
    expect(await stored('rn_before_opt_out')).toHaveLength(0);
    expect(await stored('rn_while_opted_out')).toHaveLength(0);
    expect(await stored('rn_after_opt_in')).toHaveLength(1);
  });
});
