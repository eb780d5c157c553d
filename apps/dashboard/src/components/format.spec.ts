import { predictsWhat } from './format';

describe('what a model predicts, in words', () => {
  it('names the target, the silence or the summed property by kind', () => {
    expect(predictsWhat({ kind: 'event', targetEvent: 'checkout', horizonDays: 7 })).toBe('checkout within 7 days');
    expect(predictsWhat({ kind: 'inactivity', targetEvent: null, activeDays: 7, horizonDays: 14 })).toBe('no event at all within 14 days, among users active in the last 7 days');
    expect(predictsWhat({ kind: 'value', targetEvent: 'purchase', valueProperty: 'amount', horizonDays: 1 })).toBe('the sum of amount on purchase within 1 day');
  });

  it('says what the listing knows when the horizon and details are not given', () => {
    expect(predictsWhat({ kind: 'event', targetEvent: 'checkout' })).toBe('checkout');
    expect(predictsWhat({ kind: 'inactivity', targetEvent: null })).toBe('no event at all');
  });
});
