import { SetMetadata } from '@nestjs/common';

/** A table column that holds a user id: what the coverage check compares against the schema. */
export interface UserIdColumn {
  table: string;
  column: string;
}

/**
 * Implemented by each module that keeps personal data: privacy drives every
 * store for export and erasure without knowing any module's tables. Mark the provider with
 * `@PersonalDataStoreProvider()` so privacy discovers it.
 */
/** What a store erased: a row count, or row counts by export section. */
export type ErasedRows = number | Readonly<Record<string, number>>;

export interface PersonalDataStore {
  /** Stable name, used as the export section and in erasure records, e.g. `events`. */
  readonly name: string;
  /** Every column of this store's tables that holds a user id (or an id derived from one). */
  readonly userIdColumns: readonly UserIdColumn[];
  /** Every row about the user, JSON-ready. */
  export(organizationId: string, userId: string): Promise<unknown[]>;
  /**
   * Removes every row about the user; returns how many were removed: a number, counted under the
   * store's name, or, for a store erasing several export sections at once, the count per section.
   * Either way a count names the export section listing those rows, so export and erasure agree.
   */
  erase(organizationId: string, userId: string): Promise<ErasedRows>;
  /** Rows about the user still present (0 confirms the erasure). */
  remaining(organizationId: string, userId: string): Promise<number>;
  /**
   * Retention: removes the organization's rows older than `before` (any user), returns how many.
   * Stores whose data does not age (or that are derived from another store) leave it out.
   */
  expire?(organizationId: string, before: Date): Promise<number>;
}

export const PERSONAL_DATA_STORE = Symbol('PERSONAL_DATA_STORE');

/** Class decorator for providers implementing PersonalDataStore. */
export const PersonalDataStoreProvider = (): ClassDecorator => SetMetadata(PERSONAL_DATA_STORE, true);
