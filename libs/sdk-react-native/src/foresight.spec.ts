import AsyncStorage from '@react-native-async-storage/async-storage';
import { AppState } from 'react-native';
import { Foresight } from './index';

/**
 * The SDK as an app uses it, under React Native's jest preset (its AppState mock) and AsyncStorage's
 * official jest mock. The network is a recording fetch: these tests are about the device side; the
 * same client against the real API is test/e2e/sdk-react-native.e2e-spec.ts.
 */
interface Sent {
  url: string;
  headers: Record<string, string>;
  events: Array<Record<string, unknown>>;
}

const TOKEN = 'pat_dev_reactnative';
const HOST = 'https://foresight.test';
let sent: Sent[];
let answer: number;

afterEach(() => Foresight.close());

beforeEach(async () => {
  sent = [];
  answer = 200;
  await AsyncStorage.clear();
  (AppState.addEventListener as jest.Mock).mockClear();
  globalThis.fetch = jest.fn(async (url: string, init: { headers: Record<string, string>; body: string }) => {
    sent.push({ url, headers: init.headers, events: JSON.parse(init.body) });
    return { status: answer, headers: { get: () => null }, json: async () => ({}) };
  }) as unknown as typeof fetch;
});

/** An app launch: the SDK stopped if it ran, then started over whatever AsyncStorage holds. */
async function launch(options: { startDisabled?: boolean } = {}): Promise<typeof Foresight> {
  await Foresight.close();
  await Foresight.initialize(TOKEN, { host: HOST, flushIntervalMs: 3_600_000, ...options });
  return Foresight;
}

/** The AppState listener the SDK registered in the latest launch. */
function appStateListener(): (state: string) => void {
  const calls = (AppState.addEventListener as jest.Mock<unknown, [string, (state: string) => void]>).mock.calls;
  return calls[calls.length - 1][1];
}

const names = () => sent.flatMap((request) => request.events.map((event) => event.event));

describe('@foresight/react-native', () => {
  it('sends queued events to POST /v1/events with the token when the app goes to the background', async () => {
    const sdk = await launch();
    sdk.track('add_to_cart', { sku: 'A-1' });
    sdk.screen('Cart');
    expect(sent).toHaveLength(0);
    appStateListener()('background');
    await sdk.flush();
    expect(sent[0].url).toBe(`${HOST}/v1/events`);
    expect(sent[0].headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(names()).toEqual(['add_to_cart', 'screen_view', 'screen_leave']);
    const [track, view, leave] = sent[0].events;
    expect(track).toMatchObject({ properties: { sku: 'A-1' }, context: { library: { name: '@foresight/react-native' } } });
    expect(view).toMatchObject({ properties: { screen: 'Cart' } });
    expect(leave.properties).toEqual({ screen: 'Cart', dwellMs: expect.any(Number) });
    expect(new Set(sent[0].events.map((e) => e.sessionId)).size).toBe(1);
    expect(new Set(sent[0].events.map((e) => e.messageId)).size).toBe(3);
  });

  it('keeps unsent events in AsyncStorage and sends them after a restart, with the same messageIds', async () => {
    const first = await launch();
    answer = 503;
    first.track('checkout_start');
    appStateListener()('background');
    await first.flush();
    const refused = sent.map((request) => request.events[0].messageId);
    expect(refused).toHaveLength(1);
    expect(JSON.parse((await AsyncStorage.getItem('@foresight/queue')) ?? '[]')).toHaveLength(1);

    answer = 200;
    const second = await launch();
    await second.flush();
    expect(sent).toHaveLength(2);
    expect(sent[1].events.map((e) => e.messageId)).toEqual(refused);
    expect(JSON.parse((await AsyncStorage.getItem('@foresight/queue')) ?? '[]')).toEqual([]);
  });

  it('keeps the anonymous id across launches, adds the user id after identify, and forgets both on reset', async () => {
    const first = await launch();
    first.track('open');
    await first.flush();
    const anonymousId = sent[0].events[0].anonymousId;
    expect(sent[0].events[0]).not.toHaveProperty('userId');

    const second = await launch();
    second.identify('user-42');
    second.track('open');
    second.reset();
    second.track('open');
    await second.flush();
    const events = sent.slice(1).flatMap((request) => request.events);
    expect(events.map((e) => [e.event, e.anonymousId === anonymousId, e.userId])).toEqual([
      ['identify', true, 'user-42'],
      ['open', true, 'user-42'],
      ['session_end', true, 'user-42'],
      ['open', false, undefined],
    ]);
  });

  it('sends nothing once tracking is disabled, remembers the choice across launches, and resumes on enable', async () => {
    const first = await launch();
    first.track('before_consent_withdrawn');
    first.disableTracking();
    first.track('after_consent_withdrawn');
    await first.flush();
    expect(sent).toHaveLength(0);

    const second = await launch();
    expect(second.isTrackingEnabled()).toBe(false);
    second.track('still_disabled');
    await second.flush();
    expect(sent).toHaveLength(0);
    second.enableTracking();
    second.track('consented');
    await second.flush();
    expect(names()).toEqual(['consented']);
    expect(await AsyncStorage.getItem('@foresight/consent')).toBe('granted');
  });

  it('captures nothing before consent when started disabled', async () => {
    const sdk = await launch({ startDisabled: true });
    sdk.track('too_early');
    await sdk.flush();
    expect(sent).toHaveLength(0);
    expect(await AsyncStorage.getItem('@foresight/anonymousId')).toBeNull();
  });

  it('reports each React Navigation screen once, as the container moves between routes', async () => {
    const sdk = await launch();
    let route: { name: string } | undefined;
    const tracking = sdk.screenTracking({ getCurrentRoute: () => route });
    route = { name: 'Home' };
    tracking.onReady();
    tracking.onStateChange(); // same route: params or a re-render
    route = { name: 'Product' };
    tracking.onStateChange();
    await sdk.flush();
    expect(sent.flatMap((r) => r.events.map((e) => [e.event, (e.properties as { screen: string }).screen]))).toEqual([
      ['screen_view', 'Home'],
      ['screen_leave', 'Home'],
      ['screen_view', 'Product'],
    ]);
  });

  it('keeps calls made before initialize() resolved, in order', async () => {
    const started = Foresight.initialize(TOKEN, { host: HOST, flushIntervalMs: 3_600_000 });
    Foresight.identify('early-user');
    Foresight.track('early_event');
    await started;
    await Foresight.flush();
    expect(names()).toEqual(['identify', 'early_event']);
  });

  it('refuses to start without a token or host, and warns about a bad event name instead of queueing it', async () => {
    const sdk = await launch();
    expect(() => sdk.initialize('', { host: HOST })).toThrow(/token/);
    expect(() => sdk.initialize(TOKEN, { host: '' })).toThrow(/host/);
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    sdk.track('');
    await sdk.flush();
    expect(sent).toHaveLength(0);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('event name'));
    warn.mockRestore();
  });
});
