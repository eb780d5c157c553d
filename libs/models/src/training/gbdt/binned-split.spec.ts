import { refitSplit, trainingSetFromRows } from '../training-set';
import { binnedSplit, refitBinning } from './binned-split';
import { binRows, computeBinThresholds } from './binning';

describe('binnedSplit', () => {
  const xs = Array.from({ length: 300 }, (_, i) => i);
  const train = trainingSetFromRows(['x', 'half'], xs.map((x) => [x, x / 2]), xs.map((x) => (x >= 150 ? 1 : 0)));
  const tuning = trainingSetFromRows(['x', 'half'], [[10, 5], [290, 145]], [0, 1]);

  it('bins both sets with thresholds taken from the training rows', () => {
    const { thresholds, trainBins, tuningBins } = binnedSplit(train, tuning, 16);
    const expected = computeBinThresholds(train.features, 300, 2, 16);
    expect(thresholds).toEqual(expected);
    expect(trainBins).toEqual(binRows(train.features, 300, 2, expected));
    expect(tuningBins).toEqual(binRows(tuning.features, 2, 2, expected));
  });

  it('bins a matrix once for the candidates that share it, again for other bins or another tuning set', () => {
    const first = binnedSplit(train, tuning, 32);
    expect(binnedSplit(train, tuning, 32).trainBins).toBe(first.trainBins);
    const otherBins = binnedSplit(train, tuning, 8);
    expect(otherBins.thresholds[0].length).toBe(7);
    const otherTuning = trainingSetFromRows(['x', 'half'], [[1, 0.5]], [0]);
    expect(binnedSplit(train, otherTuning, 8).tuningBins.rows).toBe(1);
  });

  it("bins a refit's rows as the search binned them: the training rows' thresholds, the tuning rows after the training rows", () => {
    const split = { train, tuning, validation: tuning };
    const searched = binnedSplit(train, tuning, 16);
    const refit = refitSplit(split);
    if (!refit) throw new Error('a split with tuning rows has a refit');
    const binned = refitBinning(searched, refit);
    expect(binned.thresholds).toBe(searched.thresholds);
    expect(binned.trainBins).toEqual(binRows(refit.train.features, 302, 2, searched.thresholds));
    expect(binned.tuningBins.rows).toBe(0);
  });
});
