import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { IsolatedImageProber } from '../../adapters/media/isolated-image-prober.js';
import { SharpMediaProber } from '../../adapters/media/sharp-media-prober.js';
import type { ProbeInput } from '../../core/media/media-prober.js';
import { makePdf } from '../support/bytes.js';
import { exifJpeg, solidPng } from '../support/images.js';

/** A probe input over bytes in memory, read in 16 KiB chunks (whole or one range). */
function inputOf(bytes: Uint8Array, contentType: string): ProbeInput {
  return {
    contentType,
    size: bytes.length,
    read: async (range) => {
      const part = range ? bytes.subarray(range.start, range.end + 1) : bytes;
      return (async function* () {
        for (let at = 0; at < part.length; at += 16 * 1024) yield part.subarray(at, at + 16 * 1024);
      })();
    },
  };
}

/** Whether the process `pid` runs now (Linux: its /proc entry, not a zombie). */
async function running(pid: number): Promise<boolean> {
  try {
    return !/^State:\s+Z/m.test(await readFile(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/** Resolves once `check` is true, polling every 20 ms for up to `timeoutMs`; false when it never was. */
async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}

describe('IsolatedImageProber (sharp in a process of its own)', function () {
  this.timeout(30_000);
  const probers: IsolatedImageProber[] = [];
  const isolated = (options: ConstructorParameters<typeof IsolatedImageProber>[0] = {}) => {
    const prober = new IsolatedImageProber(options);
    probers.push(prober);
    return prober;
  };
  afterEach(async () => {
    await Promise.all(probers.splice(0).map((prober) => prober.close()));
  });

  it('gives the facts SharpMediaProber gives in this process: oriented JPEG, PNG, head of a large image', async () => {
    const inProcess = new SharpMediaProber({ maxInputBytes: 64 * 1024, headBytes: 4 * 1024 });
    const apart = isolated({ maxInputBytes: 64 * 1024, headBytes: 4 * 1024 });
    const large = await solidPng(2_000, 1_500, { r: 1, g: 2, b: 3, alpha: 1 });
    for (const [bytes, type] of [
      [await exifJpeg(64, 48, 6), 'image/jpeg'],
      [await solidPng(300, 100, { r: 200, g: 20, b: 20, alpha: 1 }), 'image/png'],
      [Buffer.concat([large, Buffer.alloc(Math.max(0, 64 * 1024 + 1 - large.length))]), 'image/png'],
    ] as const) {
      const expected = await inProcess.probe(inputOf(bytes, type));
      expect(expected.width, type).to.be.a('number');
      expect(await apart.probe(inputOf(bytes, type)), type).to.deep.equal(expected);
    }
  });

  it('answers simultaneous probes each with its own image’s facts', async () => {
    const prober = isolated();
    const sizes = [
      [10, 20],
      [300, 40],
      [64, 64],
      [7, 90],
      [120, 33],
    ];
    const facts = await Promise.all(sizes.map(async ([w, h]) => prober.probe(inputOf(await solidPng(w, h), 'image/png'))));
    expect(facts.map(({ width, height }) => [width, height])).to.deep.equal(sizes);
    expect(facts.every((one) => typeof one.thumbhash === 'string')).to.equal(true);
  });

  it('fails on bytes that are not an image with sharp’s error, and keeps its process for the next image', async () => {
    const prober = isolated();
    await prober.probe(inputOf(await solidPng(8, 8), 'image/png'));
    const pid = prober.pid;
    let failure: unknown;
    await prober.probe(inputOf(makePdf(), 'image/png')).catch((error) => (failure = error));
    expect(failure).to.be.instanceOf(Error);
    expect((failure as Error).message).to.match(/unsupported image format|Input buffer/i);
    expect((await prober.probe(inputOf(await solidPng(9, 4), 'image/png'))).width).to.equal(9);
    expect(prober.pid).to.equal(pid);
  });

  it('fails only the image whose decode crashed the process; the next image gets a new process', async () => {
    const crashing = isolated({ script: new URL('../support/crashing-image-probe-process.js', import.meta.url) });
    let failure: unknown;
    await crashing.probe(inputOf(await solidPng(8, 8), 'image/png')).catch((error) => (failure = error));
    expect(failure).to.be.instanceOf(Error);
    expect((failure as Error).message).to.equal('The image probe process ended (exit code 3) while it read this image.');

    // A real process after a crash: the prober starts another one for the next image.
    const prober = isolated();
    const first = await prober.probe(inputOf(await solidPng(8, 8), 'image/png'));
    const pid = prober.pid!;
    process.kill(pid, 'SIGKILL');
    // Until the prober has seen the exit (its pid cleared), an image sent meanwhile goes to the dead
    // process and fails with it, as an image sent just before a crash would: wait for that.
    expect(await eventually(() => prober.pid === undefined)).to.equal(true);
    expect(await prober.probe(inputOf(await solidPng(8, 8), 'image/png'))).to.deep.equal(first);
    expect(prober.pid).to.be.a('number').and.not.equal(pid);
  });

  it('ends its process after idleMs without a probe, and starts one again for the next image', async () => {
    const prober = isolated({ idleMs: 200 });
    await prober.probe(inputOf(await solidPng(8, 8), 'image/png'));
    const pid = prober.pid!;
    expect(await running(pid)).to.equal(true);
    expect(await eventually(async () => !(await running(pid)))).to.equal(true);
    expect(prober.pid).to.equal(undefined);
    expect((await prober.probe(inputOf(await solidPng(5, 6), 'image/png'))).height).to.equal(6);
    expect(prober.pid).to.be.a('number').and.not.equal(pid);
  });
});
