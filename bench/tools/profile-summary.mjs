// Summarises V8 CPU profiles (`node --cpu-prof`, e.g. from `npm run bench -- --profile`): the
// functions with the most self time and the most inclusive time, one summary per file.
// Usage: node bench/tools/profile-summary.mjs <file.cpuprofile>… [top=25] [filter] [--last=<seconds>]
// (every argument ending in .cpuprofile is a file, e.g. a --profile directory's `*`: a server
// process and its WAL worker thread write one each; --last: only the samples of the profile's last
// seconds, e.g. one scenario at the end of a run)
import { readFileSync } from 'node:fs';

const last = Number(process.argv.find((arg) => arg.startsWith('--last='))?.slice('--last='.length) ?? Number.NaN);
const positional = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const files = positional.filter((arg) => arg.endsWith('.cpuprofile'));
const [topArg = '25', filter] = positional.filter((arg) => !arg.endsWith('.cpuprofile'));
const top = Number(topArg);
if (files.length === 0 || !Number.isInteger(top) || top <= 0) {
  console.error('usage: node bench/tools/profile-summary.mjs <file.cpuprofile>… [top=25] [filter] [--last=<seconds>]');
  process.exit(64);
}

for (const file of files) {
  if (files.length > 1) console.log(`\n== ${file}`);
  summarise(JSON.parse(readFileSync(file, 'utf8')));
}

/** Prints the self and inclusive time of `profile`'s functions (a V8 CPU profile: nodes, samples, timeDeltas in µs). */
function summarise(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  // Self time per node from the samples and their time deltas (µs).
  const selfTime = new Map();
  const since = Number.isNaN(last) ? -Infinity : profile.endTime - last * 1e6;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at >= since) selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const total = [...selfTime.values()].reduce((a, b) => a + b, 0);

  const label = (node) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url ? `${url.replace(/^file:\/\/.*?\/(node_modules|dist)\//, '$1/')}:${lineNumber + 1}` : '';
    return `${functionName || '(anonymous)'} ${where}`.trim();
  };

  const self = new Map();
  const inclusive = new Map();
  for (const [id, time] of selfTime) {
    const node = byId.get(id);
    self.set(label(node), (self.get(label(node)) ?? 0) + time);
    // Count each label once per stack (recursion).
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const name = label(byId.get(at));
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + time);
    }
  }
  const print = (title, map) => {
    console.log(`\n${title} (of ${(total / 1000).toFixed(0)} ms sampled)`);
    [...map]
      .filter(([name]) => !filter || name.includes(filter))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .forEach(([name, time]) => console.log(`${((100 * time) / total).toFixed(1).padStart(5)}%  ${(time / 1000).toFixed(0).padStart(6)} ms  ${name}`));
  };
  print('self time', self);
  print('inclusive time', inclusive);
}
