import { expect } from 'chai';
import http from 'node:http';
import ogs from 'open-graph-scraper';
import { makePng, randomFileOf } from '../support/bytes.js';
import { call, expectError, signUpWithKey, startTestServer, type TestServer, upload } from '../support/http-harness.js';
import { OffsetClock } from '../support/offset-clock.js';

/** GET on the content server with a chosen Host header (fetch may not override Host). */
function getWithHost(base: string, path: string, host: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const request = http.get({ hostname: url.hostname, port: url.port, path: url.pathname + url.search, headers: { host } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    request.on('error', reject);
  });
}

/** The page's tags as a chat crawler reads them (open-graph-scraper, which parses with cheerio). */
async function crawl(html: string) {
  const { result, error } = await ogs({ html });
  expect(error, 'open-graph-scraper read the page').to.equal(false);
  return result;
}

/** The oEmbed discovery link's `href` (oEmbed 1.0 §4), entities decoded as a parser would. */
function oembedLink(html: string): string {
  const match = /<link rel="alternate" type="application\/json\+oembed" href="([^"]+)"/.exec(html);
  expect(match, 'the page has an oEmbed discovery link').to.not.equal(null);
  return match![1].replace(/&#38;/g, '&');
}

describe('HTTP: link previews (/v/:id and /oembed)', function () {
  this.timeout(30_000);
  const clock = new OffsetClock();
  let server: TestServer;
  let apiKey: string;
  before(async () => {
    server = await startTestServer({}, {}, { clock });
    ({ apiKey } = await signUpWithKey(server, 'previews@example.com'));
  });
  after(async () => {
    await server.stop();
    expect(server.internalErrors).to.deep.equal([]);
  });
  /** An address of the content server (PUBLIC_CONTENT_URL is a test name) on the running one. */
  const local = (url: string) => url.replace('http://cdn.hangar.test', server.content);
  const page = async (viewUrl: string) => {
    const response = await fetch(local(viewUrl));
    return { status: response.status, headers: response.headers, text: await response.text() };
  };
  const oembed = (url: string) => call(server.content, `/oembed?url=${encodeURIComponent(url)}`);

  it('shows an image as a chat crawler reads it: title, description, og:image with its type, a large Twitter card, and oEmbed photo', async () => {
    const png = makePng(32, 32);
    const file = (await upload(server, apiKey, png, { name: 'holiday.png' })).body.file;
    expect(file.view_url).to.equal(`http://cdn.hangar.test/v/${file.file_id}`);
    // Its media facts are computed right after the upload (docs/media.md): the page then gives its size.
    await server.running.hangar.mediaFactsQueue?.settled();
    const answer = await page(file.view_url);
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    const og = await crawl(answer.text);
    expect(og.ogTitle).to.equal('holiday.png');
    expect(png.length).to.be.within(1_000, 99_999);
    expect(og.ogDescription).to.equal(`${(png.length / 1000).toFixed(1)} kB · image/png`);
    expect(og.ogUrl).to.equal(file.view_url);
    expect(og.ogImage?.[0]).to.include({ url: file.public_url, type: 'image/png' });
    expect([og.ogImage?.[0]?.width, og.ogImage?.[0]?.height].map(Number)).to.deep.equal([32, 32]);
    expect(answer.text).to.include('<meta property="og:image:width" content="32">').and.include('<meta property="og:image:height" content="32">');
    expect(og.twitterCard).to.equal('summary_large_image');
    expect(og.twitterImage?.[0]?.url).to.equal(file.public_url);
    expect(og.ogVideo).to.equal(undefined);
    // People opening the page see the image from the host they asked, which the CSP's 'self' allows.
    expect(answer.text).to.include(`<img src="/m/${file.file_id}" alt="holiday.png" width="32" height="32">`);

    const discovery = oembedLink(answer.text);
    expect(discovery).to.equal(`http://cdn.hangar.test/oembed?url=${encodeURIComponent(file.view_url)}&format=json`);
    const embed = await call(server.content, discovery.replace('http://cdn.hangar.test', ''));
    expect(embed.status).to.equal(200);
    expect(embed.body).to.deep.equal({
      version: '1.0',
      type: 'photo',
      title: 'holiday.png',
      provider_name: 'Hangar',
      provider_url: 'http://cdn.hangar.test',
      cache_age: 300,
      url: file.public_url,
      width: 32,
      height: 32,
    });
    // The raw address works as the oEmbed URL too; the image the preview names is the file's bytes.
    expect((await oembed(file.public_url)).body.type).to.equal('photo');
    expect(Buffer.from(await (await fetch(local(og.ogImage![0].url))).arrayBuffer()).equals(Buffer.from(png))).to.equal(true);
  });

  it('shows a video with og:video and its type, and oEmbed video with a <video> element; any other file as a link', async () => {
    const video = (await upload(server, apiKey, randomFileOf(3_000, 'video/mp4'), { contentType: 'video/mp4', name: 'clip.mp4' })).body.file;
    const og = await crawl((await page(video.view_url)).text);
    expect(og.ogType).to.equal('video.other');
    expect(og.ogVideo?.[0]).to.include({ url: video.public_url, type: 'video/mp4' });
    expect(og.ogDescription).to.equal('3.0 kB · video/mp4');
    expect(og.ogImage).to.equal(undefined);
    const embed = (await oembed(video.view_url)).body;
    expect(embed).to.include({ type: 'video', title: 'clip.mp4' });
    expect(embed.html).to.equal(`<video src="${video.public_url}" controls preload="metadata"></video>`);

    const text = (await upload(server, apiKey, new TextEncoder().encode('plain words'), { contentType: 'text/plain', name: 'notes.txt' })).body.file;
    const plain = await crawl((await page(text.view_url)).text);
    expect(plain).to.include({ ogTitle: 'notes.txt', ogType: 'website', twitterCard: 'summary' });
    expect(plain.ogImage).to.equal(undefined);
    expect(plain.ogVideo).to.equal(undefined);
    const link = (await oembed(text.view_url)).body;
    expect(link).to.include({ type: 'link', title: 'notes.txt' });
    expect(link).to.not.have.any.keys('url', 'html');
  });

  it('serves the page with no script under a CSP that allows none, and escapes a hostile file name everywhere', async () => {
    const name = '"><script>alert(1)</script><meta property="og:title" content="pwned">&amp;\'.png';
    const file = (await upload(server, apiKey, makePng(), { name })).body.file;
    const answer = await page(file.view_url);
    expect(answer.status).to.equal(200);
    const csp = answer.headers.get('content-security-policy') ?? '';
    expect(csp).to.include("default-src 'none'");
    expect(csp).to.not.match(/script-src/);
    expect(csp).to.include("frame-ancestors 'none'");
    expect(answer.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(answer.text.toLowerCase()).to.not.include('<script');
    expect(answer.text).to.not.include('content="pwned"');
    const og = await crawl(answer.text);
    expect(og.ogTitle).to.equal(name);
    expect(og.twitterTitle).to.equal(name);
    const embed = (await oembed(file.view_url)).body;
    expect(embed.title).to.equal(name);
  });

  it('answers 404 for private, missing, expired files and for addresses that are not a file’s, as /m does', async () => {
    const hidden = (await upload(server, apiKey, makePng(), { name: 'private.png', query: '?isPublic=false' })).body.file;
    expect(hidden.view_url).to.equal(null);
    expectError(await call(server.content, `/v/${hidden.file_id}`), 404, 'FILE_NOT_FOUND');
    expectError(await oembed(`http://cdn.hangar.test/v/${hidden.file_id}`), 404, 'FILE_NOT_FOUND');
    expectError(await oembed(`http://cdn.hangar.test/m/${hidden.file_id}`), 404, 'FILE_NOT_FOUND');
    expectError(await call(server.content, '/v/NoSuchFile'), 404, 'FILE_NOT_FOUND');

    const visible = (await upload(server, apiKey, makePng(), { name: 'public.png' })).body.file;
    for (const url of [
      `http://elsewhere.example/v/${visible.file_id}`,
      `http://cdn.hangar.test/files/${visible.file_id}`,
      'not a url',
      `ftp://cdn.hangar.test/v/${visible.file_id}`,
    ]) {
      expectError(await oembed(url), 404, 'FILE_NOT_FOUND');
    }
    expectError(await call(server.content, '/oembed'), 400, 'VALIDATION_FAILED');
    // oEmbed 1.0 §2.3.3: a format the provider does not offer is 501 Not Implemented.
    expectError(await call(server.content, `/oembed?url=${encodeURIComponent(visible.view_url)}&format=xml`), 501, 'FORMAT_NOT_IMPLEMENTED');

    const soon = (await upload(server, apiKey, makePng(), { name: 'soon.png' })).body.file;
    const at = new Date(clock.now().getTime() + 60_000).toISOString();
    expect((await call(server.api, `/files/${soon.file_id}`, { method: 'PATCH', apiKey, json: { expires_at: at } })).status).to.equal(200);
    expect((await page(soon.view_url)).status).to.equal(200);
    clock.advance(120_000);
    expect((await fetch(local(soon.public_url))).status).to.equal(404);
    expectError(await call(server.content, `/v/${soon.file_id}`), 404, 'FILE_NOT_FOUND');
    expectError(await oembed(soon.view_url), 404, 'FILE_NOT_FOUND');
  });

  it('counts no read for the page itself', async () => {
    const file = (await upload(server, apiKey, makePng(), { name: 'counted.png' })).body.file;
    for (let i = 0; i < 3; i++) expect((await page(file.view_url)).status).to.equal(200);
    await oembed(file.view_url);
    expect((await call(server.api, `/files/${file.file_id}`, { apiKey })).body.view_count).to.equal(0);
    await (await fetch(local(file.public_url))).arrayBuffer();
    expect((await call(server.api, `/files/${file.file_id}`, { apiKey })).body.view_count).to.equal(1);
  });

  it('works on a verified custom hostname with https addresses, and only for that account’s files', async () => {
    const owner = await signUpWithKey(server, 'preview-domain@example.com');
    await call(server.api, '/settings', { method: 'PATCH', apiKey: owner.apiKey, json: { custom_domain: 'media.example.com' } });
    await call(server.api, '/settings', { method: 'PATCH', apiKey: owner.apiKey, json: { refresh_custom_domain: true } });
    const file = (await upload(server, owner.apiKey, makePng(), { name: 'mine.png' })).body.file;
    expect(file.view_url).to.equal(`https://media.example.com/v/${file.file_id}`);
    const answer = await getWithHost(server.content, `/v/${file.file_id}`, 'media.example.com');
    expect(answer.status).to.equal(200);
    expect(answer.headers['content-security-policy']).to.include("default-src 'none'");
    const og = await crawl(answer.text);
    expect(og.ogUrl).to.equal(file.view_url);
    expect(og.ogImage?.[0]).to.include({ url: `https://media.example.com/m/${file.file_id}`, type: 'image/png' });
    const discovery = new URL(oembedLink(answer.text));
    expect(discovery.origin).to.equal('https://media.example.com');
    const embed = await getWithHost(server.content, discovery.pathname + discovery.search, 'media.example.com');
    expect(JSON.parse(embed.text)).to.include({ type: 'photo', url: `https://media.example.com/m/${file.file_id}`, provider_url: 'https://media.example.com' });

    const foreign = (await upload(server, apiKey, makePng(), { name: 'not-theirs.png' })).body.file;
    expect((await getWithHost(server.content, `/v/${foreign.file_id}`, 'media.example.com')).status).to.equal(404);
    expectError(await oembed(`https://media.example.com/v/${foreign.file_id}`), 404, 'FILE_NOT_FOUND');
    expect((await getWithHost(server.content, `/v/${file.file_id}`, 'unknown.example.org')).status).to.equal(404);
  });
});
