import type { StoredUserId } from '@foresight/events';
import { labelChanges, previousLabelKey } from './latest-labels';

const user = (id: string) => id as StoredUserId;

describe('labelChanges', () => {
  const previous = new Map([
    [previousLabelKey('u1', 'mdl_a'), 'unlikely'],
    [previousLabelKey('u2', 'mdl_a'), 'likely'],
    [previousLabelKey('u1', 'mdl_b'), 'likely'],
  ]);

  it("finds the labels that differ from the user's previous latest label of the same model", () => {
    const scored = [
      { userId: user('u1'), modelId: 'mdl_a', label: 'likely' },
      { userId: user('u2'), modelId: 'mdl_a', label: 'likely' },
      { userId: user('u1'), modelId: 'mdl_b', label: 'unlikely' },
    ];
    expect(labelChanges(scored, previous)).toEqual([
      { userId: 'u1', modelId: 'mdl_a', label: 'likely', previousLabel: 'unlikely' },
      { userId: 'u1', modelId: 'mdl_b', label: 'unlikely', previousLabel: 'likely' },
    ]);
  });

  it('reports no change for a user the model never predicted for, nor for another model of the same user', () => {
    expect(labelChanges([{ userId: user('u3'), modelId: 'mdl_a', label: 'likely' }, { userId: user('u2'), modelId: 'mdl_b', label: 'unlikely' }], previous)).toEqual([]);
  });
});
