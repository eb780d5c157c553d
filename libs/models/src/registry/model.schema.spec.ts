import { createModelSchema } from './model.schema';

const issues = (body: object) => {
  const result = createModelSchema.safeParse(body);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};

describe('create model schema', () => {
  it('defaults to an event model with its labels', () => {
    expect(createModelSchema.parse({ name: 'buys_7d', targetEvent: 'purchase' })).toMatchObject({
      kind: 'event',
      targetEvent: 'purchase',
      valueProperty: null,
      activeDays: null,
      labels: ['unlikely', 'likely'],
    });
  });

  it('inactivity: no target event, activeDays 7 and labels stays/churns by default', () => {
    expect(createModelSchema.parse({ name: 'churn_7d', kind: 'inactivity' })).toMatchObject({ kind: 'inactivity', targetEvent: null, activeDays: 7, labels: ['stays', 'churns'] });
    expect(createModelSchema.parse({ name: 'churn_7d', kind: 'inactivity', activeDays: 14, labels: ['a', 'b'] })).toMatchObject({ activeDays: 14, labels: ['a', 'b'] });
  });

  it('value: a target event and its property', () => {
    expect(createModelSchema.parse({ name: 'spend_30d', kind: 'value', targetEvent: 'purchase', valueProperty: 'amount', horizonDays: 30 })).toMatchObject({
      kind: 'value',
      targetEvent: 'purchase',
      valueProperty: 'amount',
      activeDays: null,
    });
  });

  it('names every field a kind does not take or misses', () => {
    expect(issues({ name: 'churn_7d', kind: 'inactivity', targetEvent: 'purchase' })).toEqual(['targetEvent: absent for an inactivity model: any event counts']);
    expect(issues({ name: 'spend_30d', kind: 'value', targetEvent: 'purchase' })).toEqual(['valueProperty: required for a value model']);
    expect(issues({ name: 'spend_30d', kind: 'value', valueProperty: 'amount' })).toEqual(['targetEvent: required for a value model']);
    expect(issues({ name: 'buys_7d' })).toEqual(['targetEvent: required for an event model']);
    expect(issues({ name: 'buys_7d', targetEvent: 'purchase', valueProperty: 'amount', activeDays: 3 })).toEqual([
      'valueProperty: only for a value model',
      'activeDays: only for an inactivity model',
    ]);
    expect(issues({ name: 'churn_7d', kind: 'inactivity', valueProperty: 'amount' })).toEqual(['valueProperty: only for a value model']);
    expect(issues({ name: 'churn_7d', kind: 'sometimes' })).toHaveLength(1);
  });
});
