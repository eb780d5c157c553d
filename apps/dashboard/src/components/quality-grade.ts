/** Plain-words grades of a model's validation figures (pure, so they are tested beside). */

export interface QualityGrade {
  grade: 'Excellent' | 'Good' | 'Fair' | 'Weak' | 'Not useful';
  tone: 'good' | 'fair' | 'bad';
  /** One sentence a person who never heard of AUC understands. */
  explanation: string;
}

const GRADES: Array<{ minimumAuc: number; grade: QualityGrade['grade']; tone: QualityGrade['tone'] }> = [
  { minimumAuc: 0.85, grade: 'Excellent', tone: 'good' },
  { minimumAuc: 0.75, grade: 'Good', tone: 'good' },
  { minimumAuc: 0.65, grade: 'Fair', tone: 'fair' },
  { minimumAuc: 0.55, grade: 'Weak', tone: 'bad' },
  { minimumAuc: -Infinity, grade: 'Not useful', tone: 'bad' },
];

export function qualityGrade(auc: number): QualityGrade {
  const { grade, tone } = GRADES.find((entry) => auc >= entry.minimumAuc) ?? GRADES[GRADES.length - 1];
  const percent = Math.round(auc * 100);
  return {
    grade,
    tone,
    explanation: `Given one user who did it and one who did not, the model ranks the right one higher ${percent}% of the time (a coin flip does 50%).`,
  };
}

/**
 * How much better than always guessing the base rate the probabilities are, by log loss: 1 is
 * perfect, 0 is no better than the base rate, negative is worse.
 */
export function logLossLift(logLoss: number, baseRate: number): number {
  if (baseRate <= 0 || baseRate >= 1) return 0;
  const baseline = -(baseRate * Math.log(baseRate) + (1 - baseRate) * Math.log(1 - baseRate));
  return 1 - logLoss / baseline;
}

export type Health = {
  label: 'Healthy' | 'Drifting' | 'Failing' | 'Training' | 'Not trained' | 'No monitoring yet' | 'Too few predictions';
  tone: 'good' | 'fair' | 'bad' | 'neutral';
  /** Why, when the label alone does not say: "not enough predictions yet (40 of 100)". */
  detail?: string;
};

/** What monitoring last measured of a model's drift: never, on too small a sample to mean anything, or a level. */
export type DriftReading =
  | { measured: 'never' }
  | { measured: 'too_few'; sample: number; minimum: number | null }
  | { measured: 'yes'; status: 'none' | 'low' | 'moderate' | 'high' };

/** "not enough predictions yet (40 of 100)": the drift sample, and the minimum it needs when the API says it. */
export function tooFewWords(sample: number, minimum: number | null): string {
  return `not enough predictions yet (${minimum === null ? `${sample} so far` : `${sample} of ${minimum}`})`;
}

/**
 * A model's health at a glance: its status, then how far live confidence drifted from validation.
 * Never "Healthy" without a measurement: no monitoring run, or too few predictions, say so instead.
 */
export function modelHealth(status: 'untrained' | 'active' | 'retraining' | 'failed', drift: DriftReading | undefined): Health {
  if (status === 'failed') return { label: 'Failing', tone: 'bad' };
  if (status === 'untrained') return { label: 'Not trained', tone: 'neutral' };
  if (drift?.measured === 'yes' && (drift.status === 'moderate' || drift.status === 'high')) return { label: 'Drifting', tone: drift.status === 'high' ? 'bad' : 'fair' };
  if (status === 'retraining') return { label: 'Training', tone: 'neutral' };
  if (drift === undefined || drift.measured === 'never') return { label: 'No monitoring yet', tone: 'neutral', detail: 'no monitoring run has covered it yet' };
  if (drift.measured === 'too_few') return { label: 'Too few predictions', tone: 'neutral', detail: tooFewWords(drift.sample, drift.minimum) };
  return { label: 'Healthy', tone: 'good' };
}
