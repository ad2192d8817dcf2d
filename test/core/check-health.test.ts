import { expect } from 'chai';
import { CheckHealth, type HealthProbe } from '../../core/index.js';
import { createMemoryHangar } from '../support/memory-hangar.js';

const ok = (name: string): HealthProbe => ({ name, check: async () => undefined });
const failing = (name: string): HealthProbe => ({
  name,
  check: async () => {
    throw new Error('connection refused');
  },
});
const hanging = (name: string): HealthProbe => ({ name, check: () => new Promise<void>(() => undefined) });

describe('CheckHealth', () => {
  it('reports ok for the in-memory adapters, every check ok', async () => {
    const { hangar } = createMemoryHangar();
    const report = await hangar.checkHealth.execute();
    expect(report.ok).to.equal(true);
    expect(Object.keys(report.checks)).to.have.length(2);
    expect(Object.values(report.checks)).to.deep.equal(['ok', 'ok']);
  });

  it('reports ok false, naming the failing probe, when one probe rejects', async () => {
    const report = await new CheckHealth({ probes: [ok('database'), failing('blobs')] }).execute();
    expect(report).to.deep.equal({ ok: false, checks: { database: 'ok', blobs: 'failing' } });
  });

  it('reports a probe that throws synchronously as failing, without throwing', async () => {
    const sync: HealthProbe = {
      name: 'database',
      check: () => {
        throw new Error('boom');
      },
    };
    expect(await new CheckHealth({ probes: [sync] }).execute()).to.deep.equal({ ok: false, checks: { database: 'failing' } });
  });

  it('gives up on a probe that hangs after timeoutMs and reports it failing', async () => {
    const started = Date.now();
    const report = await new CheckHealth({ probes: [hanging('blobs'), ok('database')], timeoutMs: 50 }).execute();
    const elapsed = Date.now() - started;
    expect(report).to.deep.equal({ ok: false, checks: { blobs: 'failing', database: 'ok' } });
    expect(elapsed).to.be.at.least(45).and.below(1000);
  });

  it('asks the probes at once, so two hanging probes cost one timeout', async () => {
    const started = Date.now();
    await new CheckHealth({ probes: [hanging('a'), hanging('b'), hanging('c')], timeoutMs: 100 }).execute();
    expect(Date.now() - started).to.be.below(280);
  });

  it('reports ok with no probes', async () => {
    expect(await new CheckHealth({ probes: [] }).execute()).to.deep.equal({ ok: true, checks: {} });
  });

  it('wires the ports’ probes into hangar.checkHealth', async () => {
    const { hangar } = createMemoryHangar({}, () => ({ probes: [ok('database'), failing('blobs')] }));
    expect(await hangar.checkHealth.execute()).to.deep.equal({ ok: false, checks: { database: 'ok', blobs: 'failing' } });
  });
});
