import { startTracing, stopTracing } from './tracing';

describe('startTracing (the preload each entry point imports first)', () => {
  const settings = { endpoint: 'http://otel-collector:4318', serviceName: 'foresight', sampleRatio: 1 };

  afterEach(() => stopTracing());

  it('loads nothing without an endpoint', () => {
    const load = jest.fn();
    expect(startTracing('api', undefined, load)).toBe(false);
    expect(load).not.toHaveBeenCalled();
  });

  it('loads the SDK with an endpoint, naming the service after the process, once', async () => {
    const shutdown = jest.fn(async () => undefined);
    const registerTracing = jest.fn(() => ({ shutdown }));
    const load = () => ({ registerTracing });
    expect(startTracing('worker', settings, load)).toBe(true);
    expect(registerTracing).toHaveBeenCalledWith(settings, 'foresight-worker');
    expect(startTracing('worker', settings, load)).toBe(false);
    await stopTracing();
    expect(shutdown).toHaveBeenCalledTimes(1);
  });
});
