import { expect } from 'chai';
import { escapeHtml, formatBytes } from '../../apps/http/html.js';

describe('apps/http/html: page text helpers', () => {
  it('escapes the five characters that could open a tag or leave a quoted attribute, and nothing else', () => {
    expect(escapeHtml(`<a href="x" title='y'>&amp;</a>`)).to.equal('&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;amp;&#60;/a&#62;');
    expect(escapeHtml('café ☕ photo (1).png')).to.equal('café ☕ photo (1).png');
  });

  it('writes sizes in decimal units: bytes below 1 kB, one decimal below 100 of a unit, none above', () => {
    expect(formatBytes(0)).to.equal('0 bytes');
    expect(formatBytes(1)).to.equal('1 byte');
    expect(formatBytes(999)).to.equal('999 bytes');
    expect(formatBytes(1_000)).to.equal('1.0 kB');
    expect(formatBytes(48_213)).to.equal('48.2 kB');
    expect(formatBytes(250_000)).to.equal('250 kB');
    expect(formatBytes(999_999)).to.equal('1.0 MB');
    expect(formatBytes(3_100_000)).to.equal('3.1 MB');
    expect(formatBytes(5 * 1000 ** 4)).to.equal('5.0 TB');
  });
});
