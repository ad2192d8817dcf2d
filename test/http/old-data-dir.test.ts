// A data directory written by an earlier build (commit bec26c8, test/fixtures/data-dir-bec26c8)
// starts on this build: its migrations run, and the account, key and files are all there.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';

const FIXTURE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/data-dir-bec26c8');

/** What the fixture's README says was made through the old build's API. */
const EMAIL = 'ada@example.com';
const PASSWORD = 'correct horse battery';
const KEY = 'hgr_xjwRWqNnJrPHPONqwNYTefnCz6UqI89Y';
const FILES = [
  {
    fileId: 'IDaUPuasJ7',
    name: 'Holiday Photo.PNG',
    contentType: 'image/png',
    isPublic: true,
    createdAt: '2026-12-02T00:55:11.351Z',
    expiresAt: null,
    base64: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  },
  {
    fileId: 'YGb4kwgJ5u',
    name: 'secret-notes.txt',
    contentType: 'text/plain',
    isPublic: false,
    createdAt: '2026-12-02T00:55:11.368Z',
    expiresAt: null,
    base64: 'cHJpdmF0ZSBub3RlcywgYnl0ZSBmb3IgYnl0ZQo=',
  },
  {
    fileId: 'C1Y4fospMz',
    name: 'Résumé draft.txt',
    contentType: 'text/plain',
    isPublic: true,
    createdAt: '2026-12-02T00:55:11.377Z',
    expiresAt: '2036-11-29T00:55:11.375Z',
    base64: 'ZXhwaXJlcyBpbiB0ZW4geWVhcnMK',
  },
];

describe('a data directory written by the build of bec26c8', function () {
  this.timeout(60_000);
  let dataDir: string;
  let server: ServerProcess;

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'hangar-old-data-'));
    await cp(FIXTURE, dataDir, { recursive: true });
    await writeFile(path.join(dataDir, 'hangar.db'), gunzipSync(await readFile(path.join(dataDir, 'hangar.db.gz'))));
    await rm(path.join(dataDir, 'hangar.db.gz'));
    // SQLite in the data directory whichever database the HTTP pass runs on: the fixture is a SQLite one.
    server = await startServerProcess({
      HOST: '127.0.0.1',
      PORT: '0',
      CONTENT_PORT: '0',
      DATA_DIR: dataDir,
      DATABASE_URL: `sqlite:${path.join(dataDir, 'hangar.db')}`,
      PASSWORD_HASH_MEMORY_KIB: '1024',
    });
  });
  after(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const withKey = { authorization: `Bearer ${KEY}` };

  it('lists the three files with their names, types, visibility and expiry, to the API key made then', async () => {
    const response = await fetch(`${server.api}/files?limit=100`, { headers: withKey });
    expect(response.status).to.equal(200);
    const body = (await response.json()) as { files: Array<Record<string, unknown>>; total: number };
    expect(body.total).to.equal(3);
    const newestFirst = [...FILES].reverse();
    expect(
      body.files.map((file) => ({
        fileId: file.file_id,
        name: file.name,
        contentType: file.content_type,
        isPublic: file.is_public,
        createdAt: file.created_at,
        expiresAt: file.expires_at,
      })),
    ).to.deep.equal(
      newestFirst.map(({ fileId, name, contentType, isPublic, createdAt, expiresAt }) => ({ fileId, name, contentType, isPublic, createdAt, expiresAt })),
    );
  });

  it('finds them by filters and q', async () => {
    const ids = async (query: string) => {
      const response = await fetch(`${server.api}/files?${query}`, { headers: withKey });
      expect(response.status, query).to.equal(200);
      return ((await response.json()) as { files: Array<{ file_id: string }> }).files.map((file) => file.file_id);
    };
    expect(await ids('q=HOLIDAY')).to.deep.equal(['IDaUPuasJ7']);
    expect(await ids(`q=${encodeURIComponent('résumé')}`)).to.deep.equal(['C1Y4fospMz']);
    expect(await ids('isPublic=false')).to.deep.equal(['YGb4kwgJ5u']);
    expect(await ids('type=text%2Fplain&q=.txt')).to.deep.equal(['C1Y4fospMz', 'YGb4kwgJ5u']);
  });

  it('serves every file byte for byte to its owner, and the public ones on the content server', async () => {
    for (const file of FILES) {
      const own = await fetch(`${server.api}/files/${file.fileId}/content`, { headers: withKey });
      expect(own.status, file.name).to.equal(200);
      expect(Buffer.from(await own.arrayBuffer()).toString('base64'), file.name).to.equal(file.base64);
      const anyone = await fetch(`${server.content}/d/${file.fileId}`);
      if (file.isPublic) {
        expect(anyone.status, file.name).to.equal(200);
        expect(Buffer.from(await anyone.arrayBuffer()).toString('base64'), file.name).to.equal(file.base64);
      } else {
        expect(anyone.status, file.name).to.not.equal(200);
        await anyone.arrayBuffer();
      }
    }
  });

  it('still signs in the account with its password', async () => {
    const response = await fetch(`${server.api}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
    });
    expect(response.status).to.equal(200);
    const body = (await response.json()) as { user: { email: string } };
    expect(body.user.email).to.equal(EMAIL);
  });

  it('refuses a key that was never made (the key above authenticates by what is stored, not by accident)', async () => {
    const response = await fetch(`${server.api}/files`, { headers: { authorization: `Bearer ${KEY.slice(0, -1)}X` } });
    expect(response.status).to.equal(401);
  });
});
