import { DIRECT_CALL, eventCount, libraryName, sendingLibrary } from './library-name';

describe('sendingLibrary', () => {
  it('names the sending library of a Segment message or batch, an event or an array of events', () => {
    expect(sendingLibrary({ batch: [{ context: { library: { name: 'analytics-kotlin' } } }] })).toBe('analytics-kotlin');
    expect(sendingLibrary({ context: { library: { name: 'analytics-node' } } })).toBe('analytics-node');
    expect(sendingLibrary([{ event: 'a', context: { library: { name: '@foresight/node' } } }])).toBe('@foresight/node');
    expect(sendingLibrary({ batch: [] })).toBeUndefined();
    expect(sendingLibrary([])).toBeUndefined();
    expect(sendingLibrary({ context: { library: { name: 42 } } })).toBeUndefined();
    expect(sendingLibrary('text')).toBeUndefined();
  });
});

describe('libraryName', () => {
  it('keeps known names, folds any other into "other", and names a request without one', () => {
    expect(libraryName('foresight-web', DIRECT_CALL)).toBe('foresight-web');
    expect(libraryName('analytics.js', DIRECT_CALL)).toBe('analytics.js');
    expect(libraryName('my-own|sdk', DIRECT_CALL)).toBe('other');
    expect(libraryName(undefined, DIRECT_CALL)).toBe('direct');
    expect(libraryName(undefined, 'other')).toBe('other');
  });
});

describe('eventCount', () => {
  it('counts the events of a refused body where it can be told, else one', () => {
    expect(eventCount([{}, {}, {}])).toBe(3);
    expect(eventCount({ batch: [{}, {}] })).toBe(2);
    expect(eventCount({ event: 'a' })).toBe(1);
    expect(eventCount([])).toBe(1);
    expect(eventCount(null)).toBe(1);
  });
});
