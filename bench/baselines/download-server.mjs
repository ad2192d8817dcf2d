// Bare download baseline: node:http streams a file of <directory> back (GET /<name>), with its length.
// Usage: node download-server.mjs <directory> [port]   (prints "listening <port>")
import { open } from 'node:fs/promises';
import { createServer } from 'node:http';
import { basename, join } from 'node:path';
import { pipeline } from 'node:stream/promises';

const [directory, port = '0'] = process.argv.slice(2);
const server = createServer(async (req, res) => {
  let handle;
  try {
    handle = await open(join(directory, basename(req.url)), 'r');
  } catch {
    return res.writeHead(404).end();
  }
  const { size } = await handle.stat();
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': size });
  pipeline(handle.createReadStream(), res).catch(() => undefined);
});
server.listen(Number(port), '127.0.0.1', () => console.log(`listening ${server.address().port}`));
