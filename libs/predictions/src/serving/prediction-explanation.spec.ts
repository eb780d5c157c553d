import type { ExplainableModel } from '@foresight/models';
import { explainPrediction, LISTED_CONTRIBUTIONS } from './prediction-explanation';

/** A logistic model whose raw score is 0.5 + sum_j coefficient_j * x_j (centre 0, no log scaling, no calibration to undo). */
function linear(coefficients: number[]): ExplainableModel {
  const d = coefficients.length;
  return {
    parameters: { kind: 'logistic', coefficients, center: new Array<number>(d).fill(0), logScaled: new Array<boolean>(d).fill(false), offset: 0.5, intercept: 0.5 },
    calibration: { a: 2, b: 1 },
  };
}

describe('explainPrediction', () => {
  it('lists the ten largest contributions by size, labelled, and sums the rest into "other" exactly', () => {
    const coefficients = [0.1, -3, 0.2, 2, -0.05, 1, 0.3, -0.4, 0.5, 0.6, -0.7, 0.8, 0.01];
    const names = coefficients.map((_, j) => (j === 1 ? 'screen_view_share_30d:/pricing' : `count_7d:event_${j}`));
    const row = Float32Array.from(coefficients, (_, j) => j + 1);
    const { base, contributions } = explainPrediction(linear(coefficients), names, row);

    // The raw score before the calibration (a = 2, b = 1): (0.5 - 1) / 2 + each term / 2.
    expect(base).toBeCloseTo(-0.25, 12);
    const terms = coefficients.map((c, j) => (c * (j + 1)) / 2);
    const rawScore = terms.reduce((sum, t) => sum + t, base);
    expect(Math.abs(contributions.reduce((sum, c) => sum + c.contribution, base) - rawScore)).toBeLessThan(1e-12);

    expect(contributions).toHaveLength(LISTED_CONTRIBUTIONS + 1);
    const listed = contributions.slice(0, LISTED_CONTRIBUTIONS);
    const bySize = [...terms.keys()].sort((a, b) => Math.abs(terms[b]) - Math.abs(terms[a]));
    expect(listed.map((c) => c.feature)).toEqual(bySize.slice(0, LISTED_CONTRIBUTIONS).map((j) => names[j]));
    expect(listed.find((c) => c.feature === names[1])).toEqual({ feature: names[1], label: 'share of screen views on /pricing, last 30 days', value: 2, contribution: -3 });
    const other = contributions[LISTED_CONTRIBUTIONS];
    expect(other).toMatchObject({ feature: 'other', value: null });
    expect(other.contribution).toBeCloseTo(bySize.slice(LISTED_CONTRIBUTIONS).reduce((sum, j) => sum + terms[j], 0), 12);
  });

  it('lists every feature, and no "other", when there are ten or fewer', () => {
    const { contributions } = explainPrediction(linear([1, -2]), ['events_7d', 'sessions_7d'], Float32Array.from([1, 1]));
    expect(contributions.map((c) => c.feature)).toEqual(['sessions_7d', 'events_7d']);
  });
});
