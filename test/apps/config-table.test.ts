import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, withEnvFile } from '../../apps/server/config.js';
import { CONFIG_VARIABLES, ConfigError, readVariable, renderEnvExample, renderReadmeTable } from '../../apps/server/config-variables.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** An environment that records every variable name looked up in it. */
function recording(values: Record<string, string>): { env: Record<string, string | undefined>; read: Set<string> } {
  const read = new Set<string>();
  const env = new Proxy(values, {
    get(target, name) {
      if (typeof name === 'string') read.add(name);
      return target[name as string];
    },
  });
  return { env, read };
}

describe('configuration table (apps/server/config-variables.ts)', () => {
  it('is what the configuration reference (docs/configuration.md) lists and .env.example holds', () => {
    const reference = readFileSync(path.join(ROOT, 'docs', 'configuration.md'), 'utf8');
    expect(reference).to.include(`\n${renderReadmeTable()}\n`);
    expect(readFileSync(path.join(ROOT, '.env.example'), 'utf8')).to.equal(renderEnvExample());
    const check = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'config-docs.mjs'), '--check'], { encoding: 'utf8' });
    expect(check.status, check.stderr).to.equal(0);
  });

  it('holds every variable the loader reads, and the loader reads every variable it holds', () => {
    const seen = new Set<string>();
    const configurations: Record<string, string>[] = [
      {},
      { EDGE_PROVIDER: 'cloudflare', CLOUDFLARE_API_TOKEN: 't', CLOUDFLARE_ZONE_ID: 'z', CUSTOM_DOMAIN_CNAME_TARGET: 'edge.example.com', METRICS_PORT: '0' },
      { BLOB_STORE_URL: 's3://bucket/prefix', AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 's' },
      { BLOB_STORE_URL: 'gs://bucket', DATABASE_URL: 'postgres://db/hangar', DATABASE_LISTEN_URL: 'postgres://db/hangar' },
      { OIDC_ISSUER: 'https://idp.example.com', OIDC_CLIENT_ID: 'hangar', OIDC_CLIENT_SECRET: 's' },
    ];
    for (const values of configurations) {
      const { env, read } = recording(values);
      loadConfig(withEnvFile(env, path.join(ROOT, 'does-not-exist')));
      read.forEach((name) => seen.add(name));
    }
    const table = Object.keys(CONFIG_VARIABLES);
    expect(
      [...seen].filter((name) => !table.includes(name)),
      'read but not in the table',
    ).to.deep.equal([]);
    expect(
      table.filter((name) => !seen.has(name)),
      'in the table but never read',
    ).to.deep.equal([]);
  });

  it('gives each variable its fallback when unset or blank, and names the variable when its text is invalid', () => {
    expect(readVariable({}, 'IMAGE_CONCURRENCY')).to.equal(2);
    expect(readVariable({ IMAGE_CONCURRENCY: '  ' }, 'IMAGE_CONCURRENCY')).to.equal(2);
    expect(readVariable({ IMAGE_CONCURRENCY: ' 7 ' }, 'IMAGE_CONCURRENCY')).to.equal(7);
    expect(readVariable({}, 'PUBLIC_API_URL')).to.equal(undefined);
    expect(() => readVariable({ IMAGE_CONCURRENCY: '0' }, 'IMAGE_CONCURRENCY')).to.throw(ConfigError, /^IMAGE_CONCURRENCY: must be between 1 and 256/);
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).to.throw(ConfigError, /^LOG_FORMAT: "xml" is not one of json, pretty, auto/);
  });

  it('reads whole numbers only from digits and true/false only as words, any case (decision 0019)', () => {
    for (const text of ['1e3', '3.5', '0x10', '-0', '3000abc']) {
      expect(() => readVariable({ PORT: text }, 'PORT'), text).to.throw(ConfigError, new RegExp(`^PORT: "${text}" is not a whole number\\.$`));
    }
    for (const text of ['1', '0', 'yes'])
      expect(() => readVariable({ S3_IF_NONE_MATCH: text }, 'S3_IF_NONE_MATCH'), text).to.throw(ConfigError, /is neither true nor false/);
    expect(readVariable({ S3_IF_NONE_MATCH: 'FALSE' }, 'S3_IF_NONE_MATCH')).to.equal(false);
    expect(readVariable({ WORKERS: 'Auto' }, 'WORKERS')).to.equal('auto');
    expect(readVariable({ TRUST_PROXY: 'TRUE' }, 'TRUST_PROXY')).to.equal(1);
    expect(readVariable({ TRIAL_DAYS: 'Off' }, 'TRIAL_DAYS')).to.equal(null);
    expect(() => readVariable({ WORKERS: 'two' }, 'WORKERS')).to.throw(ConfigError, /^WORKERS: "two" is not auto or a whole number between 1 and 64\.$/);
    expect(() => readVariable({ TRUST_PROXY: 'yes' }, 'TRUST_PROXY')).to.throw(
      ConfigError,
      /^TRUST_PROXY: "yes" is not true, false or a whole number between 0 and 10\.$/,
    );
    expect(() => readVariable({ MAX_UPLOAD_SIZE_LIMIT_BYTES: '0' }, 'MAX_UPLOAD_SIZE_LIMIT_BYTES')).to.throw(
      ConfigError,
      /^MAX_UPLOAD_SIZE_LIMIT_BYTES: must be at least 1\.$/,
    );
    expect(() => readVariable({ CORS_ORIGINS: 'https://a.example.com, https://b.example.com/x' }, 'CORS_ORIGINS')).to.throw(
      ConfigError,
      /^CORS_ORIGINS: "https:\/\/b\.example\.com\/x" is not an origin/,
    );
  });

  it("has fallbacks that the variables' own schemas accept", () => {
    for (const [name, row] of Object.entries(CONFIG_VARIABLES)) {
      if (!('fallback' in row)) continue;
      const schema: TSchema = row.schema;
      expect(() => Value.Encode(schema, row.fallback), name).to.not.throw();
    }
  });

  it('hands out list fallbacks that one configuration cannot change for another', () => {
    const first = loadConfig({});
    first.core.allowedContentTypes.push('application/x-evil');
    first.core.images.sizeLadder.push(9999);
    const second = loadConfig({});
    expect(second.core.allowedContentTypes).to.not.include('application/x-evil');
    expect(second.core.images.sizeLadder).to.not.include(9999);
  });
});
