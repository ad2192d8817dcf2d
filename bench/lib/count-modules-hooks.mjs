// Loader hooks of bench/lib/count-modules.mjs (run on Node's loader thread): posts the URL of each
// ES module or CommonJS file the ES module loader loads, built-ins left out.
let port;

/** @param {{ port: import('node:worker_threads').MessagePort }} data */
export function initialize(data) {
  port = data.port;
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('node:')) port.postMessage(url);
  return nextLoad(url, context);
}
