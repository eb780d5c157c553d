import { href, parseRoute } from './routes';

describe('dashboard routes', () => {
  it("carries the cutoff explorer's model and cutoff to the audiences page, and back to the same address", () => {
    const route = parseRoute('#/audiences/mdl_abc/0.30');
    expect(route).toEqual({ page: 'audiences', modelId: 'mdl_abc', cutoff: 0.3 });
    expect(href(route)).toBe('#/audiences/mdl_abc/0.30');
  });

  it('ignores a cutoff that is not a probability, and keeps the bare audiences page bare', () => {
    expect(parseRoute('#/audiences/mdl_abc/2')).toEqual({ page: 'audiences', modelId: 'mdl_abc', cutoff: undefined });
    expect(parseRoute('#/audiences/mdl_abc/abc')).toEqual({ page: 'audiences', modelId: 'mdl_abc', cutoff: undefined });
    expect(parseRoute('#/audiences')).toEqual({ page: 'audiences' });
    expect(href({ page: 'audiences' })).toBe('#/audiences');
    expect(href({ page: 'audiences', modelId: 'mdl x' })).toBe('#/audiences/mdl%20x');
  });
});
