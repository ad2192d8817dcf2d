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

/** One page of a list and the number of items in the whole list. */
export interface Paged<T> {
  items: T[];
  total: number;
}

/** Default and maximum page sizes (spec 8). */
export const DEFAULT_PAGE_SIZE = 30;
export const MAX_PAGE_SIZE = 100;

/** Turns a validated page request into an offset window. */
export function toWindow(request: PageRequest): Window {
  return { offset: (request.page - 1) * request.limit, limit: request.limit };
}
