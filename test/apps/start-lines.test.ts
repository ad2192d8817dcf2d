import { expect } from 'chai';
import { loadConfig } from '../../apps/server/config.js';
import { startLines } from '../../apps/server/start-lines.js';

describe('Start lines', () => {
  const base = { PUBLIC_CONTENT_URL: 'http://files.hangar.test:3001' };

  it('warns the operator in one line when the custom-domain target is an IP address (users must create an A/AAAA record)', () => {
    for (const [target, type] of [['127.0.0.1', 'A'], ['2001:db8::1', 'AAAA']]) {
      const lines = startLines(loadConfig({ ...base, CUSTOM_DOMAIN_CNAME_TARGET: target }), 'http://127.0.0.1:3000', 'http://127.0.0.1:3001');
      const warnings = lines.filter((line) => line.includes('warning'));
      expect(warnings, lines.join('\n')).to.have.length(1);
      expect(warnings[0]).to.include(target).and.include(`${type} record`).and.include('CUSTOM_DOMAIN_CNAME_TARGET');
    }
    const fromContentUrl = startLines(loadConfig({ PUBLIC_CONTENT_URL: 'http://127.0.0.1:3001' }), 'a', 'c');
    expect(fromContentUrl.filter((line) => line.includes('warning')), 'the default target is the content URL’s host').to.have.length(1);
    for (const host of ['edge.hangar.test', 'edge-203.0.113.7.example.net', '1.2.3.256']) {
      const lines = startLines(loadConfig({ ...base, CUSTOM_DOMAIN_CNAME_TARGET: host }), 'a', 'c');
      expect(lines.filter((line) => line.includes('warning')), `${host} is a host name`).to.deep.equal([]);
    }
  });
});
