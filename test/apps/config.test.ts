import { expect } from 'chai';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../apps/server/config.js';
import { DEFAULT_ALLOWED_CONTENT_TYPES } from '../../core/files/content-types.js';
import { startServerProcess } from '../support/server-process.js';

describe('configuration from the environment', () => {
  it('has the documented defaults: ports 3000/3001, SQLite, local disk and a file outbox under ./data', () => {
    const config = loadConfig({});
    const data = path.resolve('./data');
    expect(config).to.deep.include({
      host: '0.0.0.0',
      port: 3000,
      contentPort: 3001,
      publicApiUrl: 'http://localhost:3000',
      publicContentUrl: 'http://localhost:3001',
      dataDir: data,
      database: { kind: 'sqlite', path: path.join(data, 'hangar.db') },
      blobs: { kind: 'file', directory: path.join(data, 'blobs') },
      mail: { kind: 'file', directory: path.join(data, 'outbox') },
      jwtSecret: { kind: 'file', path: path.join(data, 'jwt-secret') },
      allowedRedirectUrls: ['http://localhost:3000'],
      defaultMaxUploadSizeBytes: 104857600,
    });
    expect(config.allowedContentTypes).to.deep.equal([...DEFAULT_ALLOWED_CONTENT_TYPES]);
  });

  it('derives addresses from PORT/CONTENT_PORT and DATA_DIR, and reads lists and URLs', () => {
    const config = loadConfig({
      PORT: '8080', CONTENT_PORT: '8081', DATA_DIR: '/srv/hangar', PUBLIC_CONTENT_URL: 'https://cdn.example.com/',
      ALLOWED_CONTENT_TYPES: 'image/png, Image/JPEG', MAIL_URL: 'smtp://u:p@mail.example.com:587', ALLOWED_REDIRECT_URLS: 'https://a.example.com/x,https://b.example.com',
    });
    expect(config.publicApiUrl).to.equal('http://localhost:8080');
    expect(config.publicContentUrl).to.equal('https://cdn.example.com');
    expect(config.database).to.deep.equal({ kind: 'sqlite', path: '/srv/hangar/hangar.db' });
    expect(config.allowedContentTypes).to.deep.equal(['image/png', 'image/jpeg']);
    expect(config.mail).to.deep.equal({ kind: 'smtp', url: 'smtp://u:p@mail.example.com:587' });
    expect(config.allowedRedirectUrls).to.deep.equal(['https://a.example.com/x', 'https://b.example.com']);
  });

  for (const [variable, value] of [
    ['PORT', 'abc'], ['CONTENT_PORT', '70000'], ['PUBLIC_API_URL', 'not a url'], ['DATABASE_URL', 'mysql://x'], ['BLOB_STORE_URL', 's3://bucket'],
    ['MAIL_URL', 'pigeon://x'], ['JWT_SECRET', 'too-short'], ['ALLOWED_REDIRECT_URLS', 'ftp://x'], ['ALLOWED_CONTENT_TYPES', 'png'],
    ['DEFAULT_MAX_UPLOAD_SIZE_BYTES', '-1'],
  ] as const) {
    it(`refuses ${variable}=${value} with an error naming ${variable}`, () => {
      expect(() => loadConfig({ [variable]: value })).to.throw(ConfigError, new RegExp(`^${variable}:`));
    });
  }

  it('stops the start with one clear line naming the variable', async () => {
    let message = '';
    try {
      await startServerProcess({ PORT: 'abc' });
    } catch (error) {
      message = String(error);
    }
    expect(message).to.match(/hangar: invalid configuration: PORT: "abc" is not a whole number\./);
  });
});
