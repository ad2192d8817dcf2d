import { expect } from 'chai';
import { loadConfig } from '../../apps/server/config.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MemoryLogger } from '../../adapters/logging/memory-logger.js';
import { interfacesOf, startLines } from '../../apps/server/start-lines.js';
import { startHangar } from '../../apps/server/start.js';

describe('Start lines', () => {
  const base = { PUBLIC_CONTENT_URL: 'http://files.hangar.test:3001' };

  it('warns the operator in one line when the custom-domain target is an IP address (users must create an A/AAAA record)', () => {
    for (const [target, type] of [
      ['127.0.0.1', 'A'],
      ['2001:db8::1', 'AAAA'],
    ]) {
      const lines = startLines(loadConfig({ ...base, CUSTOM_DOMAIN_CNAME_TARGET: target }), 'http://127.0.0.1:3000', 'http://127.0.0.1:3001');
      const warnings = lines.filter((line) => line.includes('warning'));
      expect(warnings, lines.join('\n')).to.have.length(1);
      expect(warnings[0]).to.include(target).and.include(`${type} record`).and.include('CUSTOM_DOMAIN_CNAME_TARGET');
    }
    const fromContentUrl = startLines(loadConfig({ PUBLIC_CONTENT_URL: 'http://127.0.0.1:3001' }), 'a', 'c');
    expect(
      fromContentUrl.filter((line) => line.includes('warning')),
      'the default target is the content URL’s host',
    ).to.have.length(1);
    for (const host of ['edge.hangar.test', 'edge-203.0.113.7.example.net', '1.2.3.256']) {
      const lines = startLines(loadConfig({ ...base, CUSTOM_DOMAIN_CNAME_TARGET: host }), 'a', 'c');
      expect(
        lines.filter((line) => line.includes('warning')),
        `${host} is a host name`,
      ).to.deep.equal([]);
    }
  });

  it('names the addresses actually bound: a wildcard as every interface, loopback as this machine only, each with its public URL', () => {
    const config = loadConfig({ PUBLIC_API_URL: 'https://hangar.example.com', PUBLIC_CONTENT_URL: 'https://files.example.com' });
    const [everywhere] = startLines(config, 'http://0.0.0.0:3000', 'http://0.0.0.0:3001');
    expect(everywhere).to.equal(
      'hangar: API on http://0.0.0.0:3000 (every IPv4 interface; public URL https://hangar.example.com), ' +
        'content on http://0.0.0.0:3001 (every IPv4 interface; public URL https://files.example.com)',
    );
    const [dualStack] = startLines(config, 'http://[::]:3000', 'http://[::]:3001');
    expect(dualStack).to.include('API on http://[::]:3000 (every interface, IPv6 and IPv4; public URL https://hangar.example.com)');
    const [local] = startLines(config, 'http://127.0.0.1:3000', 'http://[::1]:3001');
    expect(local).to.include('API on http://127.0.0.1:3000 (this machine only; public URL https://hangar.example.com)');
    expect(local).to.include('content on http://[::1]:3001 (this machine only; public URL https://files.example.com)');
    const [one] = startLines(config, 'http://192.0.2.10:3000', 'http://192.0.2.10:3001');
    expect(one).to.include('API on http://192.0.2.10:3000 (public URL https://hangar.example.com)');
    expect(interfacesOf('not a url')).to.equal('');
  });

  it('prints the bound wildcard address of a real start, not a loopback address it does not listen on alone', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'hangar-start-lines-'));
    const config = loadConfig({ HOST: '0.0.0.0', PORT: '0', CONTENT_PORT: '0', DATA_DIR: dir, PASSWORD_HASH_MEMORY_KIB: '1024' });
    const running = await startHangar(config, { logger: new MemoryLogger() });
    try {
      expect(running.apiListen).to.match(/^http:\/\/0\.0\.0\.0:\d+$/);
      expect(running.apiAddress).to.equal(running.apiListen.replace('0.0.0.0', '127.0.0.1'));
      const [line] = startLines(config, running.apiListen, running.contentListen);
      expect(line).to.match(
        /^hangar: API on http:\/\/0\.0\.0\.0:\d+ \(every IPv4 interface; public URL http:\/\/localhost:\d+\), content on http:\/\/0\.0\.0\.0:\d+ \(every IPv4 interface;/,
      );
      expect((await fetch(`${running.apiAddress}/healthz`)).status).to.equal(200);
    } finally {
      await running.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
