import { fitGbdt, type GbdtOptions } from './gbdt';
import { GBDT_CANDIDATES, MIN_SEARCH_TUNING_ROWS, searchGbdt, searchHyperparameters } from './hyperparameter-search';
import { rocAuc } from './metrics';
import { predictMargins } from './model-parameters';
import { makeAdditiveSplit, makeSyntheticData } from './synthetic-data.fixture';

describe('searchHyperparameters', () => {
  const { split } = makeSyntheticData({ trainRows: 3000, validationRows: MIN_SEARCH_TUNING_ROWS, features: 6, positiveRate: 0.3, seed: 5 });
  // One stump cannot rank as well as a real forest: the search must prefer the second candidate.
  const stump: Partial<GbdtOptions> = { maxTrees: 1, maxLeaves: 2 };
  const forest: Partial<GbdtOptions> = { maxTrees: 100 };

  it('keeps the candidate whose margins rank the tuning rows best (the validation rows when there are none), merged over the base options', () => {
    const searched = searchHyperparameters(split, fitGbdt, [stump, forest], { seed: 3 }, 2 * 3000 * 6);
    expect(searched.options).toEqual({ seed: 3, maxTrees: 100 });
    expect(searched.candidatesTried).toBe(2);
    const margins = predictMargins(searched.fit.parameters, split.validation.features, split.train.featureNames.length);
    expect(searched.tuningAuc).toBe(rocAuc(split.validation.labels, margins));
    const stumpAuc = rocAuc(split.validation.labels, predictMargins(fitGbdt(split, stump).parameters, split.validation.features, 6));
    expect(searched.tuningAuc).toBeGreaterThan(stumpAuc);
  });

  it('chooses on the tuning split, never on the validation split that calibrates and measures the winner', () => {
    // Validation with every label flipped: judged there, the better ranker (the forest) would lose to the stump.
    const flipped = { ...split.validation, labels: split.validation.labels.map((y) => 1 - y) };
    const searched = searchHyperparameters({ train: split.train, tuning: split.validation, validation: flipped }, fitGbdt, [stump, forest], {}, 1e9);
    expect(searched.options).toEqual(forest);
    const onFlipped = searchHyperparameters({ train: split.train, validation: flipped }, fitGbdt, [stump, forest], {}, 1e9);
    expect(onFlipped.options).toEqual(stump); // the same search without a tuning split: the contrast that makes the test mean something
  });

  it('boosts the GBDT from a linear margin when the signal is additive over many features', () => {
    // Trees from a constant rank such a signal worse than trees from the linear fit (fitGbdt's own test): the search must offer and keep that candidate.
    const additive = makeAdditiveSplit({ train: 3000, tuning: MIN_SEARCH_TUNING_ROWS, validation: 500 }, 20, 14);
    const searched = searchGbdt(additive, {}, 1e9, true);
    expect(searched.candidatesTried).toBe(GBDT_CANDIDATES.length);
    expect(searched.options.linearBase).toEqual(expect.objectContaining({ maxIterations: expect.any(Number) }));
  });

  it('fits only the first candidate when the budget has no room for a second', () => {
    const searched = searchHyperparameters(split, fitGbdt, [stump, forest], {}, 2 * 3000 * 6 - 1);
    expect(searched.candidatesTried).toBe(1);
    expect(searched.options).toEqual(stump);
  });

  it('fits only the first candidate on a holdout too small to choose on', () => {
    const small = makeSyntheticData({ trainRows: 3000, validationRows: MIN_SEARCH_TUNING_ROWS - 1, features: 6, positiveRate: 0.3, seed: 5 }).split;
    const searched = searchHyperparameters(small, fitGbdt, [stump, forest], {}, 1e9);
    expect(searched.candidatesTried).toBe(1);
    expect(searched.options).toEqual(stump);
  });
});
