/** The columns of an event that features read: libs/events owns them, with the queries that load them. */
export type { UserEvent as FeatureEvent } from '@foresight/events';
