import type { ValidationCurves } from '@foresight/models';

/** Who is in an audience: everyone whose probability of the label is at least `minConfidence`, or the `topPercent` most likely. */
export type AudienceRule = { minConfidence: number } | { topPercent: number };

type ThresholdPoint = ValidationCurves['thresholds'][number];

/** What the serving version's validation set says of an audience: the share it would hold, and its precision and recall there. */
export interface ValidationQuality {
  /** The probability of the label at the rule's cutoff (the nearest one the curves hold). */
  cutoff: number;
  /** Share of the validation users the audience holds at that cutoff. */
  share: number;
  /** Of those, the share that had the label; null when none is held. */
  precision: number | null;
  /** Of the validation users with the label, the share the audience holds; null when none had it. */
  recall: number | null;
}

/**
 * The validation figures at the rule's cutoff, from the version's threshold points (cutoffs on the
 * probability of the positive label, a row flagged when above). An audience of the positive label is
 * the flagged side of a cutoff; one of the negative label is the side left unflagged at one minus its
 * probability, where "had the label" means did not do the target event. `minConfidence` takes the
 * nearest stored cutoff, `topPercent` the cutoff whose share is nearest to the percent.
 */
export function validationQuality(curves: ValidationCurves | null, positive: boolean, rule: AudienceRule): ValidationQuality | null {
  if (!curves || curves.thresholds.length === 0) return null;
  const sides = curves.thresholds.map((point) => sideOf(point, positive));
  const nearest = (distance: (side: ValidationQuality) => number) => sides.reduce((best, side) => (distance(side) < distance(best) ? side : best));
  if ('minConfidence' in rule) return nearest((side) => Math.abs(side.cutoff - rule.minConfidence));
  return nearest((side) => Math.abs(side.share - rule.topPercent / 100));
}

/** The audience's side of one threshold point, in terms of the audience's label. */
function sideOf(point: ThresholdPoint, positive: boolean): ValidationQuality {
  const held = positive ? point.truePositives + point.falsePositives : point.trueNegatives + point.falseNegatives;
  const right = positive ? point.truePositives : point.trueNegatives;
  const withLabel = positive ? point.truePositives + point.falseNegatives : point.trueNegatives + point.falsePositives;
  const total = point.truePositives + point.falsePositives + point.trueNegatives + point.falseNegatives;
  return {
    cutoff: positive ? point.threshold : 1 - point.threshold,
    share: total > 0 ? held / total : 0,
    precision: held > 0 ? right / held : null,
    recall: withLabel > 0 ? right / withLabel : null,
  };
}
