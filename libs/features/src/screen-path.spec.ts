import { normaliseScreen } from './screen-path';

describe('normaliseScreen', () => {
  it.each([
    ['/products/sku-0042?ref=ad', '/products/:id'],
    ['https://shop.example/products/42/reviews#top', '/products/:id/reviews'],
    ['https://shop.example', '/'],
    ['https://shop.example/?utm_source=mail', '/'],
    ['/pricing/', '/pricing'],
    ['/', '/'],
    ['/orders/3f2a9c1e-77aa-4c1b-9f0e-0d1b2c3d4e5f/receipt', '/orders/:id/receipt'],
    ['  ProductDetail ', 'ProductDetail'],
    ['Checkout#step2', 'Checkout'],
  ])('%s is %s', (raw, normalised) => {
    expect(normaliseScreen(raw)).toBe(normalised);
  });
});
