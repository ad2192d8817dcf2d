import { expect } from 'chai';
import { fileJson, fileJsonText, filePageJson, KEPT_FILE_TEXTS, ZERO_COUNTS } from '../../apps/http/presenters/presenters.js';
import type { FileUrls } from '../../core/files/file-urls.js';
import type { FileView } from '../../core/files/file-view.js';
import type { StoredFile } from '../../core/files/stored-file.js';

let serial = 0;

/** A public file with its addresses, with a record id of its own. */
function view(overrides: Partial<StoredFile> = {}, urls: Partial<FileUrls> = {}): FileView {
  const id = `0193a5c2-7d7e-7c3a-9b1f-${String(++serial).padStart(12, '0')}`;
  const file: StoredFile = {
    id,
    userId: '0193a5c2-7d7e-7c3a-9b1f-aaaaaaaaaaaa',
    fileId: 'Ab3dE6gH1k',
    name: 'saffron-000001.jpg',
    contentType: 'image/jpeg',
    size: 4096,
    sha256: 'a'.repeat(64),
    isPublic: true,
    createdAt: new Date(Date.UTC(2026, 10, 28, 12, 0, 0, 7)),
    blobKey: '0193a5c2-7d7e-7c3a-9b1f-aaaaaaaaaaaa/Ab3dE6gH1k',
    expiresAt: null,
    viewCount: 3,
    downloadCount: 1,
    ...overrides,
  };
  return {
    file,
    urls: {
      publicUrl: 'https://files.example.com/m/Ab3dE6gH1k',
      publicDownloadUrl: 'https://files.example.com/d/Ab3dE6gH1k',
      defaultUrl: 'http://localhost:3001/m/Ab3dE6gH1k',
      defaultDownloadUrl: 'http://localhost:3001/d/Ab3dE6gH1k',
      viewUrl: 'https://files.example.com/v/Ab3dE6gH1k',
      ...urls,
    },
  };
}

/** The same view with `file` changed (a new record object, as a repository hands out). */
function changed(original: FileView, overrides: Partial<StoredFile>, urls: Partial<FileUrls> = {}): FileView {
  return { file: { ...original.file, ...overrides }, urls: { ...original.urls, ...urls } };
}

const expected = (v: FileView) => JSON.stringify(fileJson(v));

/** A value of the same type as `value` that differs from it. */
function otherValue(value: unknown): unknown {
  if (value instanceof Date) return new Date(value.getTime() + 1);
  if (typeof value === 'string') return `${value}x`;
  if (typeof value === 'number') return value + 1;
  if (typeof value === 'boolean') return !value;
  if (value === null) return new Date(Date.UTC(2027, 0, 1));
  throw new Error(`no other value for ${JSON.stringify(value)}`);
}

describe('fileJsonText', () => {
  it('is the text of JSON.stringify(fileJson(view)), first and when asked again', () => {
    const file = view();
    expect(fileJsonText(file)).to.equal(expected(file));
    expect(fileJsonText(file)).to.equal(expected(file));
    expect(fileJsonText(changed(file, {}))).to.equal(expected(file));
  });

  it('has the read counts as the last members of fileJson, where it writes them anew (else it would write every text whole)', () => {
    expect(expected(view({ viewCount: 0, downloadCount: 0 })).endsWith(ZERO_COUNTS)).to.equal(true);
  });

  it('writes the current read counts of a file asked again', () => {
    const file = view();
    fileJsonText(file);
    for (const counts of [
      { viewCount: 0, downloadCount: 0 },
      { viewCount: 1_234_567_890_123, downloadCount: 9 },
    ]) {
      const now = changed(file, counts);
      expect(fileJsonText(now)).to.equal(expected(now));
      expect(JSON.parse(fileJsonText(now))).to.include({ view_count: counts.viewCount, download_count: counts.downloadCount });
    }
  });

  it('gives the new text after a change of any member of the record', () => {
    const file = view({ expiresAt: null });
    for (const member of Object.keys(file.file) as (keyof StoredFile)[]) {
      fileJsonText(file);
      const now = changed(file, { [member]: otherValue(file.file[member]) });
      expect(fileJsonText(now), member).to.equal(expected(now));
    }
    const stripped = view({ metadataRemoved: ['location'] });
    fileJsonText(stripped);
    for (const metadataRemoved of [['location', 'exif'] as const, undefined]) {
      const now = changed(stripped, { metadataRemoved });
      expect(fileJsonText(now)).to.equal(expected(now));
    }
    const expiring = view({ expiresAt: new Date(Date.UTC(2027, 0, 1)) });
    fileJsonText(expiring);
    for (const expiresAt of [new Date(Date.UTC(2027, 0, 2)), null]) {
      const now = changed(expiring, { expiresAt });
      expect(fileJsonText(now)).to.equal(expected(now));
    }
  });

  it('gives the new text after a change of any address (a custom domain verified or removed, a file made private)', () => {
    const file = view();
    for (const member of Object.keys(file.urls) as (keyof FileUrls)[]) {
      fileJsonText(file);
      const now = changed(file, {}, { [member]: `${file.urls[member]}x` });
      expect(fileJsonText(now), member).to.equal(expected(now));
    }
    fileJsonText(file);
    const hidden = changed(file, { isPublic: false }, { publicUrl: null, publicDownloadUrl: null, defaultUrl: null, defaultDownloadUrl: null, viewUrl: null });
    expect(fileJsonText(hidden)).to.equal(expected(hidden));
  });

  it('gives the new text when a file’s media facts arrive or change (they are computed after the upload)', () => {
    const before = view({ fileId: 'MediaFact01' });
    expect(JSON.parse(fileJsonText(before))).to.include({ width: null, height: null, duration_seconds: null, thumbhash: null });
    const facts = { width: 4032, height: 3024, durationSeconds: null, thumbhash: '1QcSHQRnh493V4dIh4eXh1h4kJUI' };
    for (const media of [facts, { ...facts, width: 3024, height: 4032 }, { ...facts, durationSeconds: 1.5 }, { ...facts, thumbhash: null }]) {
      const now: FileView = { ...before, media };
      expect(fileJsonText(now)).to.equal(expected(now));
    }
  });

  it('escapes names as JSON.stringify does (quotes, backslashes, control characters, non-ASCII, lone surrogates, no name)', () => {
    for (const name of ['a "quoted" name.png', 'back\\slash', 'tab\there\nline\u0000\u001f', 'café ☕ 😀', 'lone \ud800 surrogate', '\u2028\u2029', null]) {
      const file = view({ name });
      expect(fileJsonText(file)).to.equal(expected(file));
      expect(fileJsonText(file)).to.equal(expected(file));
    }
  });

  it('does not follow later changes to the objects it was given', () => {
    const file = view();
    const text = fileJsonText(file);
    file.file.name = 'renamed.jpg';
    // FileAddresses hands out frozen addresses; a view built elsewhere may hold an object its maker changes.
    (file.urls as FileUrls).publicUrl = 'https://elsewhere.example/m/Ab3dE6gH1k';
    expect(fileJsonText(file)).to.equal(expected(file)).and.not.equal(text);
  });

  it('stays exact for files beyond the number it keeps', () => {
    const files = Array.from({ length: KEPT_FILE_TEXTS + 10 }, () => view());
    for (const file of files) fileJsonText(file);
    for (const file of [files[0], files[files.length - 1]])
      expect(fileJsonText(changed(file, { viewCount: 42 }))).to.equal(expected(changed(file, { viewCount: 42 })));
  });
});

describe('filePageJson', () => {
  it('is the UTF-8 of JSON.stringify of the GET /files body', () => {
    const items = [view({ name: 'één.png' }), view({ isPublic: false }), view({ expiresAt: new Date(Date.UTC(2027, 0, 1)) })];
    for (const page of [
      { items, total: 3 },
      { items, total: 10_000, totalRelation: 'gte' as const },
      { items: [], total: 0, totalRelation: 'eq' as const },
      { items: items.slice(0, 1), total: 1 },
    ]) {
      const body = { files: page.items.map(fileJson), total: page.total, total_relation: page.totalRelation ?? 'eq', page: 2, limit: 30 };
      expect(filePageJson(page, { page: 2, limit: 30 }).equals(Buffer.from(JSON.stringify(body), 'utf8'))).to.equal(true);
    }
  });
});
