import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  IdleSpells,
  MAX_COLLECTIONS_PER_IDLE_SPELL,
  MIN_COLLECTIONS_PER_IDLE_SPELL,
  SMALL_YOUNG_GENERATION_BYTES,
  trimHeapWhenIdle,
} from '../../apps/server/idle-heap.js';

const run = promisify(execFile);
const IDLE_HEAP_MODULE = new URL('../../apps/server/idle-heap.js', import.meta.url).href;
const MiB = 1024 * 1024;

/**
 * A process that allocates like a server under load (short-lived objects, a few kept), so V8 grows
 * its young generation, then idles: with the trimmer (`trim`) until its collections have shrunk the
 * young generation (at most 12 s), without it (`control`) for 10 s. Prints the young generation's
 * resident size right after the busy spell and at the end, in MiB, and the seconds idled.
 */
const ALLOCATE_THEN_IDLE = `
import v8 from 'node:v8';
const { trimHeapWhenIdle } = await import(${JSON.stringify(IDLE_HEAP_MODULE)});
const youngMiB = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').physical_space_size / 1048576;
const trimmer = process.argv[1] === 'trim' ? trimHeapWhenIdle({ sampleMs: 1000, idleMs: 5000 }) : undefined;
const kept = [];
for (let i = 0; i < 3e6; i++) {
  const item = { i, name: 'file-' + i };
  if (i % 1000 === 0) kept.push(item);
}
const before = youngMiB();
const idleFrom = Date.now();
const idledMs = () => Date.now() - idleFrom;
if (trimmer) while (youngMiB() > 2 && idledMs() < 12000) await new Promise((resolve) => setTimeout(resolve, 200));
else await new Promise((resolve) => setTimeout(resolve, 10000));
process.stdout.write(JSON.stringify({ before, after: youngMiB(), collections: trimmer?.collections ?? 0, idleSeconds: idledMs() / 1000, kept: kept.length }));
`;

/**
 * A process (run with `--expose-gc`) that compiles 3,000 functions and calls each once, and leaves
 * its old generation fragmented (300,000 objects made, one in twenty kept), then idles with the
 * trimmer until it has collected twice. Prints the bytecode V8 holds (KiB) and the old
 * generation's committed and used size (MiB) before and after, whether the functions still answer,
 * and the bytecode after 3,000 more functions and a plain `gc()`, which flushes nothing once the
 * trimmer's flags are unset again.
 */
const COMPILE_FRAGMENT_THEN_IDLE = `
import v8 from 'node:v8';
const { trimHeapWhenIdle } = await import(${JSON.stringify(IDLE_HEAP_MODULE)});
const bytecodeKiB = () => v8.getHeapCodeStatistics().bytecode_and_metadata_size / 1024;
const old = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'old_space');
const oldMiB = () => ({ committed: old().physical_space_size / 1048576, used: old().space_used_size / 1048576 });
const compile = (from) => Array.from({ length: 3000 }, (_, i) => new Function('a', 'let x = a; for (let j = 0; j < 3; j++) x += j * ' + (from + i) + '; return x;'));
const sum = (functions) => functions.reduce((total, f) => total + f(1), 0);
const first = compile(0);
const expected = sum(first);
let kept = Array.from({ length: 300000 }, (_, i) => ({ i, name: 'file-' + i }));
gc();
kept = kept.filter((_, i) => i % 20 === 0);
gc();
const before = { bytecode: bytecodeKiB(), old: oldMiB() };
const trimmer = trimHeapWhenIdle({ sampleMs: 100, idleMs: 300 });
while (trimmer.collections < 2) await new Promise((resolve) => setTimeout(resolve, 50));
trimmer.stop();
const after = { bytecode: bytecodeKiB(), old: oldMiB() };
const second = compile(3000);
sum(second);
const compiled = bytecodeKiB();
gc();
process.stdout.write(JSON.stringify({ before, after, answers: sum(first) === expected, plain: { compiled, collected: bytecodeKiB() }, kept: kept.length }));
`;

describe('Idle heap trimming (apps/server/idle-heap.ts)', function () {
  this.timeout(30_000);

  it('collects once the event loop has been idle for the idle time after a busy spell, until the young generation is back at its smallest', () => {
    const spells = new IdleSpells(2_000, 6_000, 0.02);
    const due = (samples: number[]) => samples.map((utilisation) => spells.observe(utilisation));
    // From the start (a busy spell): 2 s, 4 s idle, due from 6 s on.
    expect(due([0, 0.01, 0])).to.deep.equal([false, false, true]);
    spells.collected(true); // shrunk at once: still a second collection, which compacts the old generation
    expect(due([0])).to.deep.equal([true]);
    spells.collected(true);
    // Settled: light traffic under the threshold is still idle and runs no collection.
    expect(due([0, 0.015, 0.019, 0.01])).to.deep.equal([false, false, false, false]);
    // A busy sample starts a new spell, whose idle time counts from zero.
    expect(due([0.5, 0, 0, 0.3, 0, 0])).to.deep.equal([false, false, false, false, false, false]);
    // Not shrunk: one collection per sample, at most MAX_COLLECTIONS_PER_IDLE_SPELL.
    const collections = [];
    for (let sample = 0; sample < 10; sample++) {
      const now = spells.observe(0);
      collections.push(now);
      if (now) spells.collected(false);
    }
    expect(collections).to.deep.equal([true, true, true, true, true, false, false, false, false, false]);
    expect(MAX_COLLECTIONS_PER_IDLE_SPELL).to.equal(5);
  });

  it('runs the collections with the real event loop, none while a process is busy, and stops once the young generation is small', async () => {
    let collections = 0;
    let young = 32 * MiB;
    const trimmer = trimHeapWhenIdle({
      sampleMs: 20,
      idleMs: 60,
      idleUtilisation: 0.5,
      collect: () => collections++,
      // The third collection finds it shrunk.
      youngGenerationBytes: () => (collections >= 3 ? SMALL_YOUNG_GENERATION_BYTES : young),
    });
    try {
      // Busy: the event loop held for nearly all of each sample.
      const busyUntil = Date.now() + 200;
      while (Date.now() < busyUntil) {
        const turn = Date.now() + 30;
        while (Date.now() < turn);
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(collections, 'collections while busy').to.equal(0);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(collections, 'collections after idling').to.equal(3);
      expect(trimmer.collections).to.equal(3);
      young = 0;
    } finally {
      trimmer.stop();
    }
    expect(MIN_COLLECTIONS_PER_IDLE_SPELL).to.be.below(3);
  });

  it('gives back the young generation a busy spell grew once the process idles, which V8 alone keeps', async () => {
    const measure = async (mode: 'trim' | 'control') => {
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', ALLOCATE_THEN_IDLE, mode], { timeout: 20_000 });
      return JSON.parse(stdout) as { before: number; after: number; collections: number };
    };
    const [trimmed, control] = await Promise.all([measure('trim'), measure('control')]);
    const figures = JSON.stringify({ trimmed, control });
    expect(trimmed.before, `young generation after the busy spell, MiB: ${figures}`).to.be.at.least(8);
    expect(trimmed.after, `young generation once idle, with the trimmer, MiB: ${figures}`).to.be.at.most(2);
    expect(trimmed.collections, figures).to.be.within(MIN_COLLECTIONS_PER_IDLE_SPELL, MAX_COLLECTIONS_PER_IDLE_SPELL);
    expect(control.after, `young generation once idle, without the trimmer, MiB: ${figures}`).to.be.at.least(8);
  });

  it('compacts the old generation and drops the bytecode of functions not in use at an idle collection, and only there', async () => {
    const { stdout } = await run(process.execPath, ['--expose-gc', '--input-type=module', '-e', COMPILE_FRAGMENT_THEN_IDLE], { timeout: 20_000 });
    const { before, after, answers, plain } = JSON.parse(stdout);
    const figures = JSON.stringify({ before, after, plain });
    expect(before.old.committed - before.old.used, `old generation left fragmented before: ${figures}`).to.be.above(8);
    expect(after.old.committed - after.old.used, `old generation compacted: ${figures}`).to.be.below(2);
    expect(after.bytecode, `bytecode flushed: ${figures}`).to.be.below(before.bytecode / 2);
    expect(answers, 'flushed functions compile again and answer as before').to.equal(true);
    // The flags are off again: a plain collection keeps the bytecode of functions just compiled.
    expect(plain.collected, `a plain gc() after the idle ones: ${figures}`).to.be.above(plain.compiled * 0.8);
  });
});
