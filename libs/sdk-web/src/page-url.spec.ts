import { pageUrl } from './page-url';

describe('pageUrl', () => {
  it('keeps origin and path, never the query or the fragment', () => {
    expect(pageUrl('https://shop.test/sdk/example/pricing?email=jane%40example.com#token=pat_dev_abc')).toBe('https://shop.test/sdk/example/pricing');
  });
});
