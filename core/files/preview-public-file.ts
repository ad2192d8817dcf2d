import type { ReadPublicFile } from './read-public-file.js';
import type { StoredFile } from './stored-file.js';
import { type MediaFacts, type MediaFactsRepository, NO_MEDIA_FACTS } from '../media/media-facts.js';

/** What a link preview shows of a public file: its record and the absolute base of its addresses. */
export interface FilePreview {
  file: StoredFile;
  /**
   * The origin the preview's absolute addresses are built on (no trailing slash): `https://<host>`
   * when asked on a verified custom hostname, else {cdn_url} (PUBLIC_CONTENT_URL), as the File
   * object's `public_url` is built (spec 2.5).
   */
  base: string;
  /** Its width, height and duration when known (docs/media.md), for `og:image:width` and oEmbed's `width`/`height`. */
  media: MediaFacts;
}

/**
 * Finds a public file for its link preview page `/v/:file_id` and for `/oembed` (docs/media.md,
 * "Link previews"). Exactly the rules of the view address `/m` ({@link ReadPublicFile}: private,
 * missing, expired and suspended-owner files are not found; on a custom hostname only its account's
 * files), but no read is counted: the page serves no bytes, and the image or video it points to
 * counts when a crawler or a viewer fetches it from `/m`.
 * @throws DomainError FILE_NOT_FOUND (404)
 */
export class PreviewPublicFile {
  private readonly contentHosts: ReadonlySet<string>;

  /**
   * @param deps.contentHosts the content server's own hosts, as given to ReadPublicFile; @param deps.publicContentUrl {cdn_url}, without trailing slash
   * @param deps.media where the file's media facts are read; absent: none are known
   */
  constructor(
    private readonly deps: { readPublicFile: ReadPublicFile; contentHosts: readonly string[]; publicContentUrl: string; media?: MediaFactsRepository },
  ) {
    this.contentHosts = new Set(deps.contentHosts.map((host) => host.toLowerCase()));
  }

  /** @param input.host the request's `Host`, lower-case, without port; omitted for the content URL */
  async execute(input: { fileId: string; host?: string }): Promise<FilePreview> {
    const { file } = await this.deps.readPublicFile.execute({ fileId: input.fileId, host: input.host, count: false });
    const onCustomHost = input.host !== undefined && !this.contentHosts.has(input.host);
    const media = (await this.deps.media?.findMany([file.id]))?.get(file.id) ?? NO_MEDIA_FACTS;
    return { file, base: onCustomHost ? `https://${input.host}` : this.deps.publicContentUrl.replace(/\/+$/, ''), media };
  }
}
