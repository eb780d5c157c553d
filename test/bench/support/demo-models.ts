/** The three models bench:predict and bench:score train on the demo population. */
export const MODELS = [
  { name: 'checkout_7d', targetEvent: 'checkout', algorithm: 'gbdt' },
  { name: 'upgrade_7d', targetEvent: 'upgrade', algorithm: 'gbdt' },
  { name: 'churn_14d', targetEvent: 'churn', algorithm: 'logistic', horizonDays: 14 },
];

/**
 * Days of demo history: a 14-day horizon plus the 14-day holdout leaves a 30-day seed about two days of
 * training cutoffs, and the eligibility gate refuses such a model (churn_14d); 45 days train all three.
 */
export const DAYS = 45;
