import { expect } from 'chai';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { makePng } from '../support/bytes.js';
import { call, expectError, signUpWithKey, startTestServer, upload, localDiskIt } from '../support/http-harness.js';

describe('HTTP: health when a dependency fails', () => {
  localDiskIt('answers 503 on both servers, naming the blob store, once its directory is gone; uploads get 503 BLOB_STORE_UNAVAILABLE', async () => {
    const server = await startTestServer();
    try {
      const { apiKey } = await signUpWithKey(server, 'health@example.com');
      await rm(path.join(server.dataDir, 'blobs'), { recursive: true, force: true });
      for (const base of [server.api, server.content]) {
        const health = await call(base, '/healthz');
        expect(health.status).to.equal(503);
        expect(health.body).to.deep.equal({ status: 'unavailable', checks: { database: 'ok', blob_store: 'failing' } });
      }
      expectError(await upload(server, apiKey, makePng()), 503, 'BLOB_STORE_UNAVAILABLE');
      expect((await call(server.api, '/files', { apiKey })).body.total).to.equal(0);
      expect(server.internalErrors).to.deep.equal([]);
    } finally {
      await server.stop();
    }
  });
});
