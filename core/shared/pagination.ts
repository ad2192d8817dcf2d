import { DomainError } from './errors.js';

/** A page request as the spec defines it (spec 4 conventions): 1-based `page`, `limit` items. */
export interface PageRequest {
  page: number;
  limit: number;
}

/** A window into a list: `offset` items skipped, at most `limit` returned. */
export interface Window {
  offset: number;
  limit: number;
}

/**
 * How `total` relates to the number of matching items, as Elasticsearch's `hits.total.relation`:
 * `eq` exact, `gte` a lower bound (the list was counted only up to a limit).
 */
export type TotalRelation = 'eq' | 'gte';

/** One page of a list and the number of items in the whole list. */
export interface Paged<T> {
  items: T[];
  /** The number of items in the whole list: exact, or a lower bound when `totalRelation` is `gte`. */
  total: number;
  /** `gte` when `total` is a lower bound; absent or `eq` when it is exact. */
  totalRelation?: TotalRelation;
}

/** Default and maximum page sizes (spec 8). */
export const DEFAULT_PAGE_SIZE = 30;
export const MAX_PAGE_SIZE = 100;

/**
 * Turns a page request into an offset window. The bounds are checked here, not only at the HTTP
 * edge, because an embedding host calls the use cases directly: `page` is a whole number from 1,
 * `limit` a whole number from 1 to {@link MAX_PAGE_SIZE} (spec 8), and the offset
 * (`(page - 1) × limit` items) must stay a safe integer.
 * @throws DomainError VALIDATION_FAILED (400) naming the field, `details` as `[{ path, message }]`
 */
export function toWindow(request: PageRequest): Window {
  const { page, limit } = request;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw new DomainError('VALIDATION_FAILED', `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}; got ${limit}.`, [
      { path: '/limit', message: `Expected an integer from 1 to ${MAX_PAGE_SIZE}` },
    ]);
  }
  if (!Number.isSafeInteger(page) || page < 1 || !Number.isSafeInteger((page - 1) * limit)) {
    throw new DomainError('VALIDATION_FAILED', `page must be a whole number from 1 (pages start at 1); got ${page}.`, [
      { path: '/page', message: 'Expected an integer from 1 whose offset is a safe integer' },
    ]);
  }
  return { offset: (page - 1) * limit, limit };
}
