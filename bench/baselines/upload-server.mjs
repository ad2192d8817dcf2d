// Bare upload baseline: node:http streams the body to a temp file, fsyncs it, renames it into
// place and fsyncs the directory: the durability work of adapters/blobs/file-and-sqlite-blob-store.ts.
// Usage: node upload-server.mjs <directory> [port]   (prints "listening <port>")
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

const [directory, port = '0'] = process.argv.slice(2);
const server = createServer(async (req, res) => {
  const name = randomBytes(16).toString('hex');
  const temp = join(directory, `.${name}.tmp`);
  try {
    await pipeline(req, createWriteStream(temp, { flags: 'wx', flush: true })); // flush: fsync before close
    await rename(temp, join(directory, name));
    const dir = await open(directory, 'r');
    await dir.sync().finally(() => dir.close());
    res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ name }));
  } catch (error) {
    await rm(temp, { force: true });
    res.writeHead(500).end(String(error));
  }
});
server.listen(Number(port), '127.0.0.1', () => console.log(`listening ${server.address().port}`));
