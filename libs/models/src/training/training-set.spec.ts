import { InvalidTrainingSetError } from './training.errors';
import { assertTrainingSplit, countClasses, TrainingSet, trainingSetFromRows } from './training-set';

describe('trainingSetFromRows', () => {
  it('lays rows out row-major in float32', () => {
    const set = trainingSetFromRows(['a', 'b'], [[1, 0.1], [2, 3]], [0, 1]);
    expect(Array.from(set.features)).toEqual([1, Math.fround(0.1), 2, 3]);
    expect(set.labels).toEqual(Uint8Array.from([0, 1]));
  });

  it('rejects ragged rows and label count mismatches', () => {
    expect(() => trainingSetFromRows(['a', 'b'], [[1, 2], [3]], [0, 1])).toThrow('row 1 has 1 values; expected 2');
    expect(() => trainingSetFromRows(['a'], [[1]], [0, 1])).toThrow('1 rows but 2 labels');
  });
});

describe('assertTrainingSplit', () => {
  const good = (): TrainingSet => trainingSetFromRows(['a', 'b'], [[1, 2], [3, 4]], [0, 1]);

  it('accepts a consistent split', () => {
    expect(() => assertTrainingSplit({ train: good(), validation: good() })).not.toThrow();
  });

  it.each([
    ['a non-binary label', (s: TrainingSet) => (s.labels[1] = 2), 'train: label of row 1 is 2; expected 0 or 1'],
    ['a non-finite value', (s: TrainingSet) => (s.features[3] = NaN), 'train: feature "b" of row 1 is not finite'],
    ['a short feature array', (s: TrainingSet) => (s.features = s.features.slice(1)), 'train: 3 feature values do not fill 2 rows of 2 features'],
    ['duplicate names', (s: TrainingSet) => (s.featureNames = ['a', 'a']), 'train: feature names must be distinct'],
  ])('rejects %s', (_, corrupt, message) => {
    const train = good();
    corrupt(train);
    expect(() => assertTrainingSplit({ train, validation: good() })).toThrow(new InvalidTrainingSetError(message));
  });

  it('rejects validation features in another order', () => {
    const validation = good();
    validation.featureNames = ['b', 'a'];
    expect(() => assertTrainingSplit({ train: good(), validation })).toThrow('same feature names in the same order');
  });
});

describe('countClasses', () => {
  it('counts positives and negatives', () => {
    expect(countClasses(Uint8Array.from([1, 0, 0, 1, 1]))).toEqual({ positives: 3, negatives: 2 });
  });
});
