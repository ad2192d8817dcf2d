import { expect } from 'chai';
import type { FileFilter } from '../../core/index.js';
import { FILE_TOTAL_COUNT_LIMIT } from '../../core/files/list-files.js';
import { aFile } from '../contracts/persistence-fixtures.js';
import { createMemoryHangar, expectDomainError, START } from '../support/memory-hangar.js';

const MINUTE = 60_000;
const at = (minutes: number) => new Date(START.getTime() + minutes * MINUTE);

/**
 * Alice's files, uploaded one minute apart (minute 1 … 5), and one of Bob's that matches every filter.
 *   minute  name                   type        size  public
 *   1       Quarterly-Report.pdf   app/pdf       10  yes
 *   2       cat.png                image/png     20  yes
 *   3       dog.png                image/png     30  no
 *   4       (none)                 text/plain    40  yes
 *   5       report-draft.txt       text/plain    50  no
 */
async function withFiles() {
  const world = createMemoryHangar();
  const alice = await world.registerConfirmed('alice@example.com');
  const bob = await world.registerConfirmed('bob@example.com');
  const specs = [
    { fileName: 'Quarterly-Report.pdf', contentType: 'application/pdf', size: 10, isPublic: true },
    { fileName: 'cat.png', contentType: 'image/png', size: 20, isPublic: true },
    { fileName: 'dog.png', contentType: 'image/png', size: 30, isPublic: false },
    { fileName: undefined, contentType: 'text/plain', size: 40, isPublic: true },
    { fileName: 'report-draft.txt', contentType: 'text/plain', size: 50, isPublic: false },
  ];
  const files = [];
  for (const spec of specs) {
    world.clock.advance(MINUTE);
    files.push((await world.upload(alice.userId, spec)).file);
  }
  world.clock.advance(MINUTE);
  const bobsFile = (await world.upload(bob.userId, { fileName: 'report cat dog.png', contentType: 'image/png', size: 30, isPublic: true })).file;
  const names = async (filter: FileFilter, page = 1, limit = 30) => {
    const result = await world.hangar.listFiles.execute({ userId: alice.userId, filter, page, limit });
    return result.items.map((view) => view.file.name ?? `(${view.file.size})`);
  };
  return { ...world, alice, bob, files, bobsFile, names };
}

describe('ListFiles', () => {
  it('counts a search up to 10,000 matches: beyond, total is 10,000 with total relation gte; the unfiltered total stays exact', async () => {
    const world = createMemoryHangar();
    const alice = await world.registerConfirmed('alice@example.com');
    const limits = { storageLimitBytes: Number.MAX_SAFE_INTEGER, fileCountLimit: Number.MAX_SAFE_INTEGER };
    for (let i = 0; i <= FILE_TOTAL_COUNT_LIMIT; i++) {
      await world.repos.files.insert(aFile(alice.userId, { name: `cat-${i}.png`, contentType: 'image/png', createdAt: at(i) }), limits);
    }
    await world.repos.files.insert(aFile(alice.userId, { name: 'dog.png', contentType: 'image/png', createdAt: at(-1) }), limits);
    const list = (filter: FileFilter, page = 1) => world.hangar.listFiles.execute({ userId: alice.userId, filter, page, limit: 100 });
    const cats = await list({ q: 'cat-' });
    expect({ total: cats.total, relation: cats.totalRelation }).to.deep.equal({ total: FILE_TOTAL_COUNT_LIMIT, relation: 'gte' });
    expect(cats.items[0].file.name).to.equal(`cat-${FILE_TOTAL_COUNT_LIMIT}.png`);
    // Pages past the bound still list the matches.
    expect((await list({ q: 'cat-' }, 101)).items.map((view) => view.file.name)).to.deep.equal(['cat-0.png']);
    const dogs = await list({ q: 'dog.png' });
    expect({ total: dogs.total, relation: dogs.totalRelation ?? 'eq' }).to.deep.equal({ total: 1, relation: 'eq' });
    const all = await list({});
    expect({ total: all.total, relation: all.totalRelation ?? 'eq' }).to.deep.equal({ total: FILE_TOTAL_COUNT_LIMIT + 2, relation: 'eq' });
  });

  it('lists all of the user’s files newest first with the total', async () => {
    const { hangar, alice, names } = await withFiles();
    expect(await names({})).to.deep.equal(['report-draft.txt', '(40)', 'dog.png', 'cat.png', 'Quarterly-Report.pdf']);
    expect((await hangar.listFiles.execute({ userId: alice.userId, filter: {}, page: 1, limit: 30 })).total).to.equal(5);
  });

  it('never shows another account’s files, whatever the filter', async () => {
    const { hangar, bob, bobsFile, names } = await withFiles();
    expect(await names({ q: 'report cat dog' })).to.deep.equal([]);
    expect(await names({ q: bobsFile.fileId })).to.deep.equal([]);
    const bobs = await hangar.listFiles.execute({ userId: bob.userId, filter: {}, page: 1, limit: 30 });
    expect(bobs.total).to.equal(1);
    expect(bobs.items.map((v) => v.file.fileId)).to.deep.equal([bobsFile.fileId]);
  });

  it('pages newest first: limit 2 gives 2, 2, 1 and then nothing, with total 5 on each page', async () => {
    const { hangar, alice } = await withFiles();
    const pages = [];
    for (let page = 1; page <= 4; page++) pages.push(await hangar.listFiles.execute({ userId: alice.userId, filter: {}, page, limit: 2 }));
    expect(pages.map((p) => p.items.map((v) => v.file.size))).to.deep.equal([[50, 40], [30, 20], [10], []]);
    expect(pages.map((p) => p.total)).to.deep.equal([5, 5, 5, 5]);
  });

  it('returns each file with its addresses (null for private files)', async () => {
    const { hangar, alice, files } = await withFiles();
    const { items } = await hangar.listFiles.execute({ userId: alice.userId, filter: {}, page: 1, limit: 30 });
    const cat = items.find((v) => v.file.fileId === files[1].fileId)!;
    const dog = items.find((v) => v.file.fileId === files[2].fileId)!;
    expect(cat.urls.publicUrl).to.equal(`http://cdn.test/m/${files[1].fileId}`);
    expect(cat.urls.defaultDownloadUrl).to.equal(`http://cdn.test/d/${files[1].fileId}`);
    expect(dog.urls.publicUrl).to.equal(null);
  });

  describe('q', () => {
    it('matches names case-insensitively as a substring', async () => {
      const { names } = await withFiles();
      expect(await names({ q: 'REPORT' })).to.deep.equal(['report-draft.txt', 'Quarterly-Report.pdf']);
      expect(await names({ q: '.PNG' })).to.deep.equal(['dog.png', 'cat.png']);
    });

    it('matches file ids, case-insensitively', async () => {
      const { names, files } = await withFiles();
      const target = files[3];
      expect(await names({ q: target.fileId })).to.deep.equal(['(40)']);
      const swapped = [...target.fileId].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
      expect(await names({ q: swapped })).to.deep.equal(['(40)']);
    });

    it('matches nothing for a string in no name or id', async () => {
      const { names } = await withFiles();
      expect(await names({ q: 'zebra-zebra' })).to.deep.equal([]);
    });

    it('ignores a q of only spaces', async () => {
      const { names } = await withFiles();
      expect(await names({ q: '   ' })).to.have.length(5);
    });
  });

  describe('type', () => {
    it('keeps only the exact content type', async () => {
      const { names } = await withFiles();
      expect(await names({ type: 'image/png' })).to.deep.equal(['dog.png', 'cat.png']);
      expect(await names({ type: 'text/plain' })).to.deep.equal(['report-draft.txt', '(40)']);
    });

    it('accepts the type in another case', async () => {
      const { names } = await withFiles();
      expect(await names({ type: 'Image/PNG' })).to.deep.equal(['dog.png', 'cat.png']);
    });

    it('answers an empty list for an allowed type without files', async () => {
      const { names } = await withFiles();
      expect(await names({ type: 'video/mp4' })).to.deep.equal([]);
    });

    it('refuses a type not in the allowed list with INVALID_FILTER', async () => {
      const { hangar, alice } = await withFiles();
      for (const type of ['application/x-msdownload', 'image', 'image/*']) {
        const error = await expectDomainError(hangar.listFiles.execute({ userId: alice.userId, filter: { type }, page: 1, limit: 30 }), 'INVALID_FILTER');
        expect(error.details).to.have.property('allowed').that.includes('image/png');
      }
    });
  });

  describe('size', () => {
    it('sizeMin is inclusive', async () => {
      const { names } = await withFiles();
      expect(await names({ sizeMin: 40 })).to.deep.equal(['report-draft.txt', '(40)']);
    });

    it('sizeMax is inclusive', async () => {
      const { names } = await withFiles();
      expect(await names({ sizeMax: 20 })).to.deep.equal(['cat.png', 'Quarterly-Report.pdf']);
    });

    it('sizeMin and sizeMax together, both inclusive', async () => {
      const { names } = await withFiles();
      expect(await names({ sizeMin: 20, sizeMax: 30 })).to.deep.equal(['dog.png', 'cat.png']);
      expect(await names({ sizeMin: 30, sizeMax: 30 })).to.deep.equal(['dog.png']);
      expect(await names({ sizeMin: 31, sizeMax: 39 })).to.deep.equal([]);
    });
  });

  describe('isPublic', () => {
    it('true keeps public files, false private ones', async () => {
      const { names } = await withFiles();
      expect(await names({ isPublic: true })).to.deep.equal(['(40)', 'cat.png', 'Quarterly-Report.pdf']);
      expect(await names({ isPublic: false })).to.deep.equal(['report-draft.txt', 'dog.png']);
    });
  });

  describe('created', () => {
    it('createdAfter is inclusive', async () => {
      const { names } = await withFiles();
      expect(await names({ createdAfter: at(4) })).to.deep.equal(['report-draft.txt', '(40)']);
    });

    it('createdBefore is inclusive', async () => {
      const { names } = await withFiles();
      expect(await names({ createdBefore: at(2) })).to.deep.equal(['cat.png', 'Quarterly-Report.pdf']);
    });

    it('both together select a window, bounds included', async () => {
      const { names } = await withFiles();
      expect(await names({ createdAfter: at(2), createdBefore: at(3) })).to.deep.equal(['dog.png', 'cat.png']);
      expect(await names({ createdAfter: new Date(at(2).getTime() + 1), createdBefore: new Date(at(3).getTime() - 1) })).to.deep.equal([]);
    });
  });

  it('combines filters with AND, and the total counts the matches, not the page', async () => {
    const { hangar, alice } = await withFiles();
    const result = await hangar.listFiles.execute({ userId: alice.userId, filter: { type: 'text/plain', isPublic: false, q: 'draft' }, page: 1, limit: 30 });
    expect(result.items.map((v) => v.file.name)).to.deep.equal(['report-draft.txt']);
    const paged = await hangar.listFiles.execute({ userId: alice.userId, filter: { sizeMin: 20 }, page: 1, limit: 1 });
    expect(paged.items.map((v) => v.file.size)).to.deep.equal([50]);
    expect(paged.total).to.equal(4);
  });

  it('answers an account without files with an empty page and total 0', async () => {
    const world = createMemoryHangar();
    const carol = await world.registerConfirmed('carol@example.com');
    expect(await world.hangar.listFiles.execute({ userId: carol.userId, filter: {}, page: 1, limit: 30 })).to.deep.equal({ items: [], total: 0 });
  });
});
