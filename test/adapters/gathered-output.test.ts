import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { GatheredOutput, PIPE_BUF } from '../../adapters/logging/gathered-output.js';

/** An output that records each write(2) as the bytes it took; `take` decides how many it takes (or throws). */
function recorder(take: (length: number, call: number) => number = (length) => length): {
  writes: Buffer[];
  writeSync: (buffer: Buffer, offset: number, length: number) => number;
} {
  const writes: Buffer[] = [];
  return {
    writes,
    writeSync: (buffer, offset, length) => {
      const taken = take(length, writes.length);
      writes.push(Buffer.from(buffer.subarray(offset, offset + taken)));
      return taken;
    },
  };
}

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(code), { code });
}

/** Lines of varied lengths, some with characters of 2 to 4 UTF-8 bytes. */
function someLines(count: number): string[] {
  return Array.from(
    { length: count },
    (_, i) => `${JSON.stringify({ n: i, route: '/m/:id', pad: 'x'.repeat((i * 37) % 300), name: i % 5 === 0 ? 'café ☕ 😀' : 'plain' })}\n`,
  );
}

describe('Adapter: GatheredOutput (the log lines of stdout)', () => {
  it('writes nothing while lines gather, then all of them in order on flushSync', () => {
    const { writes, writeSync } = recorder();
    const output = new GatheredOutput({ writeSync });
    const lines = someLines(20);
    for (const line of lines) output.write(line);
    expect(writes).to.have.length(0);
    output.flushSync();
    expect(Buffer.concat(writes).toString('utf8')).to.equal(lines.join(''));
  });

  it('writes in pieces of at most PIPE_BUF bytes, each ending at the end of a line, the bytes unchanged', () => {
    const { writes, writeSync } = recorder();
    const output = new GatheredOutput({ writeSync });
    const lines = someLines(2000);
    for (const line of lines) output.write(line);
    output.flushSync();
    expect(Buffer.concat(writes).toString('utf8')).to.equal(lines.join(''));
    expect(writes.length).to.be.greaterThan(10);
    for (const piece of writes) {
      expect(piece.length).to.be.at.most(PIPE_BUF);
      expect(piece[piece.length - 1]).to.equal(0x0a);
    }
  });

  it('writes once 64 KiB have gathered, without waiting for the timer', () => {
    const { writes, writeSync } = recorder();
    const output = new GatheredOutput({ writeSync, flushEveryMs: 60_000 });
    const line = `${'y'.repeat(999)}\n`;
    for (let i = 0; i < 65; i++) output.write(line);
    expect(writes, 'nothing before the 64 KiB are full').to.have.length(0);
    output.write(line);
    expect(Buffer.concat(writes).length).to.equal(65 * 1000);
    output.flushSync();
    expect(Buffer.concat(writes).length).to.equal(66 * 1000);
  });

  it('writes a lone line once flushEveryMs have passed', async () => {
    const { writes, writeSync } = recorder();
    const output = new GatheredOutput({ writeSync, flushEveryMs: 50 });
    output.write('{"event":"alone"}\n');
    expect(writes).to.have.length(0);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(Buffer.concat(writes).toString()).to.equal('{"event":"alone"}\n');
  });

  it('writes a line longer than PIPE_BUF whole and alone, between the pieces of the others', () => {
    const { writes, writeSync } = recorder();
    const output = new GatheredOutput({ writeSync });
    const long = `${JSON.stringify({ stack: 'z'.repeat(10_000) })}\n`;
    const before = someLines(30);
    const after = someLines(30);
    for (const line of [...before, long, ...after]) output.write(line);
    output.flushSync();
    expect(writes.map((piece) => piece.toString('utf8'))).to.include(long);
    expect(Buffer.concat(writes).toString('utf8')).to.equal([...before, long, ...after].join(''));
  });

  it('writes a line longer than everything it gathers at once, after the lines before it', () => {
    const { writes, writeSync } = recorder();
    const output = new GatheredOutput({ writeSync, gatherBytes: 8192 });
    const long = `${'w'.repeat(20_000)}\n`;
    output.write('{"first":1}\n');
    output.write(long);
    expect(Buffer.concat(writes).toString()).to.equal(`{"first":1}\n${long}`);
  });

  it('goes on after a partial write from where it stopped', () => {
    const { writes, writeSync } = recorder((length) => Math.min(length, 1000));
    const output = new GatheredOutput({ writeSync });
    const lines = someLines(300);
    for (const line of lines) output.write(line);
    output.flushSync();
    expect(Buffer.concat(writes).toString('utf8')).to.equal(lines.join(''));
  });

  it('waits and tries again while the output is full (EAGAIN), losing nothing', () => {
    let refusals = 0;
    const { writes, writeSync } = recorder((length, call) => {
      if (call % 2 === 0 && refusals < 5) {
        refusals += 1;
        throw errno('EAGAIN');
      }
      return length;
    });
    const output = new GatheredOutput({ writeSync });
    const lines = someLines(200);
    for (const line of lines) output.write(line);
    output.flushSync();
    expect(refusals).to.equal(5);
    expect(Buffer.concat(writes).toString('utf8')).to.equal(lines.join(''));
  });

  it('drops the lines of a write that fails otherwise (EPIPE: the reader has gone) and goes on', () => {
    let broken = true;
    const { writes, writeSync } = recorder((length) => {
      if (broken) throw errno('EPIPE');
      return length;
    });
    const output = new GatheredOutput({ writeSync });
    output.write('{"lost":1}\n');
    expect(() => output.flushSync()).not.to.throw();
    broken = false;
    output.write('{"kept":1}\n');
    output.flushSync();
    expect(Buffer.concat(writes).toString()).to.equal('{"kept":1}\n');
  });

  it('keeps the lines of several processes sharing one pipe whole: no line is cut into by another', function () {
    this.timeout(30_000);
    const module = fileURLToPath(new URL('../../adapters/logging/gathered-output.js', import.meta.url));
    // Three writers on the stdout pipe of one parent (as the workers of one npm start share theirs).
    const writer = `import(${JSON.stringify(module)}).then(({ GatheredOutput }) => {
      const output = new GatheredOutput({ fd: 1 });
      const id = process.argv[1];
      for (let i = 0; i < 30000; i++) output.write(JSON.stringify({ id, i, pad: 'p'.repeat(i % 700) }) + '\\n');
      output.flushSync();
    });`;
    const parent = `const { spawn } = require('node:child_process');
      for (const id of ['a', 'b', 'c']) spawn(process.execPath, ['-e', ${JSON.stringify(writer)}, id], { stdio: ['ignore', 'inherit', 'inherit'] });`;
    const run = spawnSync(process.execPath, ['-e', parent], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    expect(run.status, run.stderr).to.equal(0);
    const lines = run.stdout.split('\n').filter((line) => line.length > 0);
    const counts: Record<string, number> = { a: 0, b: 0, c: 0 };
    for (const line of lines) {
      const entry = JSON.parse(line) as { id: string; i: number; pad: string };
      expect(entry.pad).to.equal('p'.repeat(entry.i % 700));
      counts[entry.id] += 1;
    }
    expect(counts).to.deep.equal({ a: 30000, b: 30000, c: 30000 });
  });
});
