import { DomainError } from '../shared/errors.js';
import { type PageRequest, type Paged, toWindow } from '../shared/pagination.js';
import { ContentTypePolicy } from './content-types.js';
import type { FileOptions } from './file-options.js';
import type { FileFilter, FileRepository } from './file-repository.js';
import type { FileAddresses, FileView } from './file-view.js';

/**
 * The number of matches `GET /files` counts before it answers `total_relation: "gte"` with this
 * lower bound, as Elasticsearch's `track_total_hits` (exact totals the database keeps, such as the
 * unfiltered or visibility-only count, stay exact beyond it).
 */
export const FILE_TOTAL_COUNT_LIMIT = 10_000;

/**
 * Lists the user's files, newest first, with the filters of spec 4.9. Value shapes are checked at
 * the edge; the rules here are about meaning, and the page bounds ({@link toWindow}). `total` is
 * exact up to {@link FILE_TOTAL_COUNT_LIMIT} matches (`totalRelation` absent) and that bound beyond (`'gte'`).
 * @throws DomainError INVALID_FILTER (400) when `type` is not an allowed content type
 * @throws DomainError VALIDATION_FAILED (400) when `page` or `limit` is out of bounds
 */
export class ListFiles {
  private readonly contentTypes: ContentTypePolicy;

  constructor(private readonly deps: { files: FileRepository; addresses: FileAddresses; options: FileOptions }) {
    this.contentTypes = new ContentTypePolicy(deps.options.allowedContentTypes);
  }

  async execute(input: { userId: string; filter: FileFilter } & PageRequest): Promise<Paged<FileView>> {
    const filter = { ...input.filter };
    if (filter.type !== undefined) {
      if (!this.contentTypes.has(filter.type)) {
        throw new DomainError('INVALID_FILTER', `type must be one of the allowed content types; ${filter.type} is not.`, { allowed: this.contentTypes.types });
      }
      filter.type = filter.type.toLowerCase();
    }
    if (filter.q !== undefined && filter.q.trim() === '') delete filter.q;
    const page = await this.deps.addresses.current(
      () => this.deps.files.list({ userId: input.userId, filter, window: toWindow(input), countLimit: FILE_TOTAL_COUNT_LIMIT }),
      (read, withPending) => ({ ...read, items: read.items.map(withPending) }),
    );
    return {
      items: await this.deps.addresses.views(input.userId, page.items),
      ...(page.totalRelation && { totalRelation: page.totalRelation }),
      total: page.total,
    };
  }
}
