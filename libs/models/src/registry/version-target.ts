import type { AmountSpread } from '../training';

/**
 * What serving needs of a version beyond its graph, by what the model predicts (null or absent for an
 * `event` version, and for every version trained before the other kinds existed).
 */
export type VersionTarget =
  | {
      kind: 'inactivity';
      activeDays: number;
      /**
       * Users not active within `activeDays` at the training cutoffs: rows, and the share that then sent
       * no event within the horizon. Such a user is answered with this rate, not the model's score.
       */
      dormant: { rows: number; churnRate: number };
    }
  | { kind: 'value'; valueProperty: string; spread: AmountSpread };
