import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PinoLogger, prettyLine } from '../../adapters/logging/pino-logger.js';

function capture(options: ConstructorParameters<typeof PinoLogger>[0] = {}): { logger: PinoLogger; lines: string[] } {
  const lines: string[] = [];
  return { logger: new PinoLogger({ ...options, destination: { write: (line: string) => lines.push(line) } }), lines };
}

describe('Adapter: PinoLogger', () => {
  it('writes one JSON line per entry with time, level, pid, event and fields, from LOG_LEVEL up', () => {
    const { logger, lines } = capture({ level: 'warn' });
    logger.info('ignored');
    logger.warn('disk_low', { free_bytes: 10 });
    expect(lines).to.have.length(1);
    const entry = JSON.parse(lines[0]);
    expect(entry).to.deep.include({ level: 'warn', pid: process.pid, event: 'disk_low', free_bytes: 10 });
    expect(entry.time).to.match(/^\d{4}-\d\d-\d\dT.*Z$/);
    expect(logger.enabled('info')).to.equal(false);
    expect(logger.enabled('error')).to.equal(true);
  });

  it('stamps each line with the time it was written, to the millisecond, also lines written in the same millisecond', async () => {
    const { logger, lines } = capture();
    const times: [number, number][] = [];
    for (let i = 0; i < 3; i++) {
      const before = Date.now();
      logger.info('tick', { i });
      logger.info('tock', { i, nested: { n: i } });
      times.push([before, Date.now()]);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const stamped = lines.map((line) => Date.parse(JSON.parse(line).time));
    stamped.forEach((ms, n) => {
      const [before, after] = times[Math.floor(n / 2)];
      expect(ms).to.be.within(before, after);
    });
    expect(JSON.parse(lines[0]).time).to.equal(new Date(stamped[0]).toISOString());
  });

  it('replaces credentials passed by mistake, at the top level and one object down', () => {
    const { logger, lines } = capture();
    logger.info('oops', {
      password: 'hunter2-secret',
      headers: { authorization: 'Bearer eyJ-secret', 'x-api-key': 'hgr_secret' },
      sig: 'abc-secret',
      token: 't-secret',
    });
    expect(lines[0]).not.to.match(/secret/);
    expect(JSON.parse(lines[0]).headers.authorization).to.equal('[redacted]');
  });

  it('replaces credentials at the top level of an entry whose fields are all primitives too', () => {
    const { logger, lines } = capture();
    logger.warn('oops', { api_key: 'hgr_secret', 'x-api-key': 'hgr_secret2', status: 200, route: null });
    expect(lines[0]).not.to.match(/secret/);
    expect(JSON.parse(lines[0])).to.deep.include({ api_key: '[redacted]', status: 200, route: null });
  });

  it('on stdout (the default), hands every line to the reader though the process exits right after writing them', () => {
    const module = fileURLToPath(new URL('../../adapters/logging/pino-logger.js', import.meta.url));
    const script = `import(${JSON.stringify(module)}).then(({ PinoLogger }) => {
      const logger = new PinoLogger();
      for (let i = 0; i < 20000; i++) logger.info('request', { i, route: '/m/:id', status: 200 });
      process.exit(0);
    });`;
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    expect(child.status, child.stderr).to.equal(0);
    const lines = child.stdout.trim().split('\n');
    expect(lines).to.have.length(20000);
    expect(JSON.parse(lines[19999])).to.deep.include({ event: 'request', i: 19999 });
  });

  it('on stdout, writes a lone line within 0.1 s while the process goes on', async () => {
    const module = fileURLToPath(new URL('../../adapters/logging/pino-logger.js', import.meta.url));
    const script = `import(${JSON.stringify(module)}).then(({ PinoLogger }) => {
      new PinoLogger().info('alone', { n: 1 });
      setTimeout(() => {}, 5000);
    });`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const started = Date.now();
      const line = await new Promise<string>((resolve, reject) => {
        child.stdout.setEncoding('utf8').once('data', resolve);
        child.once('exit', () => reject(new Error('exited without writing')));
      });
      expect(JSON.parse(line)).to.deep.include({ event: 'alone', n: 1 });
      // Module loading included; the process is still running (it waits 5 s).
      expect(Date.now() - started).to.be.below(2000);
      expect(child.exitCode).to.equal(null);
    } finally {
      child.kill();
    }
  });

  it('on stdout, keeps its memory while entries come faster than one write at a time would carry them', () => {
    const module = fileURLToPath(new URL('../../adapters/logging/pino-logger.js', import.meta.url));
    // 600,000 entries, 200 a turn of the event loop (a busy server's access log), stdout on /dev/null.
    const script = `import(${JSON.stringify(module)}).then(({ PinoLogger }) => {
      const logger = new PinoLogger();
      const before = process.memoryUsage().heapUsed;
      let n = 0;
      const turn = () => {
        for (let i = 0; i < 200; i++) logger.info('request', { method: 'GET', route: '/files', status: 200, ms: 1.5, n: n++, agent: 'a client of some length' });
        if (n < 600000) setImmediate(turn);
        else process.stderr.write(String(process.memoryUsage().heapUsed - before));
      };
      turn();
    });`;
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
    expect(child.status, child.stderr).to.equal(0);
    expect(Number(child.stderr)).to.be.below(32 * 1024 * 1024);
  });

  it('writes an error with its stack only at level error', () => {
    const { logger, lines } = capture();
    logger.info('request_aborted', { error: new Error('aborted') });
    logger.error('internal_error', { error: new Error('boom') });
    expect(JSON.parse(lines[0]).error).to.deep.equal({ type: 'Error', message: 'aborted' });
    expect(JSON.parse(lines[1]).error.stack).to.match(/^Error: boom\n/);
  });

  it('LOG_FORMAT=pretty: one readable line per entry, the stack of an error below it', () => {
    const { logger, lines } = capture({ format: 'pretty' });
    logger.info('request', { method: 'GET', route: '/files/:id', status: 200, msg: 'hello there' });
    logger.error('internal_error', { error: new Error('boom') });
    expect(lines[0]).to.match(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}request hello there method=GET route=\/files\/:id status=200\n$/);
    expect(lines[1]).to.match(/^\d\d:\d\d:\d\d\.\d{3} ERROR internal_error error=\{"type":"Error","message":"boom"\}\nError: boom\n/);
    expect(prettyLine('not json\n')).to.equal('not json\n');
  });
});
