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

/** Turns a validated page request into an offset window. */
export function toWindow(request: PageRequest): Window {
  return { offset: (request.page - 1) * request.limit, limit: request.limit };
}
