/** The columns of an event that features read (first-class behavioral signals are typed columns). */
export interface FeatureEvent {
  /** Epoch milliseconds. */
  occurredAt: number;
  event: string;
  sessionId: string | null;
  dwellMs: number | null;
  hesitationMs: number | null;
  scrollDepth: number | null;
}
