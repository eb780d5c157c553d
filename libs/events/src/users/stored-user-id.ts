declare const storedUserIdBrand: unique symbol;

/**
 * A user (or anonymous) id as the organization stores it: a keyed HMAC (`psn_…`) when it has
 * hashUserIds, else the id as sent. Only UserIdsService makes one from a caller's id, and UserEvents
 * from what storage holds, so a raw id can never reach a query by mistake.
 */
export type StoredUserId = string & { readonly [storedUserIdBrand]: true };

/** A user a caller named: the id as the caller knows it (for responses) and as stored (for everything else). */
export interface CallerUser {
  id: string;
  stored: StoredUserId;
}

/** For ids read back from the events tables, which hold stored ids only. */
export function storedUserIdFromStorage(id: string): StoredUserId {
  return id as StoredUserId;
}
