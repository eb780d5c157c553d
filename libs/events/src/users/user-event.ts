/** The columns of an event that behavioral features read (first-class signals are typed columns). */
export interface UserEvent {
  /** Epoch milliseconds. */
  occurredAt: number;
  event: string;
  sessionId: string | null;
  /** The `screen` or `url` the event was sent from, as stored (the features normalise it). */
  screen: string | null;
  dwellMs: number | null;
  hesitationMs: number | null;
  scrollDepth: number | null;
  /** The event's top-level numeric custom properties (cart items, amounts); null when it sent none. */
  numbers: Record<string, number> | null;
  /** The event's short top-level string custom properties (a plan, a reason); null when it sent none. */
  strings: Record<string, string> | null;
}

/** A user's events in a window, oldest first, with when the user was first and last seen before its end. */
export interface UserEventWindow {
  events: UserEvent[];
  firstSeenAt: number;
  lastSeenAt: number;
  /** user_activity's revision; null when ingestion kept no activity row (events loaded by other means). */
  revision: string | null;
}

/** A span of a user's time: (after, until]. */
export interface UserSpan {
  user: string;
  after: Date;
  until: Date;
}

/** One of a user's events as the dashboard lists it: no properties. */
export interface RecentEvent {
  event: string;
  timestamp: string;
  sessionId: string | null;
}
