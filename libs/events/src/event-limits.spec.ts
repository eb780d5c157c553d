import { MAX_NESTING_DEPTH, shapeProblems } from './event-limits';

const nested = (levels: number): unknown => {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
};

describe('shapeProblems', () => {
  it(`allows ${MAX_NESTING_DEPTH} levels below a field and refuses one more, naming the field`, () => {
    expect(shapeProblems({ event: 'click', properties: nested(MAX_NESTING_DEPTH) })).toEqual([]);
    expect(shapeProblems({ event: 'click', properties: nested(MAX_NESTING_DEPTH + 1) })).toEqual([
      { path: 'properties', message: `nested deeper than ${MAX_NESTING_DEPTH} levels` },
    ]);
  });

  it('walks 100,000 levels without recursion', () => {
    let deep: unknown[] = [];
    const root = deep;
    for (let i = 0; i < 100_000; i++) deep = (deep[0] = []);
    expect(shapeProblems({ context: root, userId: root })).toEqual([
      { path: 'context', message: expect.stringMatching(/nested deeper/) },
      { path: 'userId', message: expect.stringMatching(/nested deeper/) },
    ]);
  });

  it('finds NUL in any string or key, and numbers JSON turned into Infinity, with their path', () => {
    const nul = 'a\u0000b';
    expect(shapeProblems({ userId: nul })).toEqual([{ path: 'userId', message: expect.stringMatching(/NUL/) }]);
    expect(shapeProblems({ properties: { list: [1, { x: nul }] } })).toEqual([{ path: 'properties.list.1.x', message: expect.stringMatching(/NUL/) }]);
    expect(shapeProblems({ context: { [nul]: 1 } })).toEqual([{ path: 'context.a\\u0000b', message: expect.stringMatching(/key/) }]);
    expect(shapeProblems({ [nul]: 1 })).toEqual([{ path: 'a\\u0000b', message: expect.stringMatching(/key/) }]);
    expect(shapeProblems({ properties: { big: JSON.parse('1e999') } })).toEqual([{ path: 'properties.big', message: 'a number too large to store' }]);
  });

  it('finds prototype keys as JSON.parse keeps them (own properties), at any depth, and leaves a plain constructor key alone', () => {
    expect(shapeProblems(JSON.parse('{"properties":{"cart":[{"__proto__":{"x":1}}]}}'))).toEqual([{ path: 'properties.cart.0.__proto__', message: expect.stringMatching(/prototype/) }]);
    expect(shapeProblems(JSON.parse('{"context":{"constructor":{"prototype":{"x":1}}}}'))).toEqual([{ path: 'context.constructor', message: expect.stringMatching(/prototype/) }]);
    expect(shapeProblems(JSON.parse('{"__proto__":{"event":"x"}}'))).toEqual([{ path: '__proto__', message: expect.stringMatching(/prototype/) }]);
    expect(shapeProblems({ properties: { constructor: 'Widget', prototype: true } })).toEqual([]);
  });

  it('accepts ordinary events, and leaves non-objects to the schema', () => {
    expect(shapeProblems({ event: 'click', userId: 'u', properties: { depth: 1e-320, tags: ['a', 'b'], n: null } })).toEqual([]);
    expect(shapeProblems(null)).toEqual([]);
    expect(shapeProblems('click')).toEqual([]);
  });
});
