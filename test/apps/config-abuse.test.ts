import { expect } from 'chai';
import { availableParallelism } from 'node:os';
import { ConfigError, loadConfig } from '../../apps/server/config.js';
import { DEFAULT_RATE_LIMITS } from '../../core/index.js';

function failure(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('configuration: abuse limits, proxies, CORS, hashing', () => {
  it('defaults: no trusted proxy, no CORS origin, the documented rate limits, one hash per CPU (shared out among the workers)', () => {
    const config = loadConfig({});
    expect(config.trustProxyHops).to.equal(0);
    expect(config.corsOrigins).to.deep.equal([]);
    expect(config.core.rateLimits).to.deep.equal(DEFAULT_RATE_LIMITS);
    expect(config.passwordHasher.concurrency).to.equal(Math.ceil(availableParallelism() / config.workers));
  });

  it('reads TRUST_PROXY as false/0, true (1 hop) or a hop count up to 10', () => {
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxyHops).to.equal(0);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxyHops).to.equal(1);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxyHops).to.equal(2);
    expect(failure({ TRUST_PROXY: 'yes' }).variable).to.equal('TRUST_PROXY');
    expect(failure({ TRUST_PROXY: '11' }).variable).to.equal('TRUST_PROXY');
  });

  it('reads CORS_ORIGINS as a comma-separated list of origins, refusing paths and non-http schemes', () => {
    expect(loadConfig({ CORS_ORIGINS: 'https://app.example.com, http://localhost:5173/' }).corsOrigins).to.deep.equal([
      'https://app.example.com',
      'http://localhost:5173',
    ]);
    expect(failure({ CORS_ORIGINS: 'https://app.example.com/dashboard' }).variable).to.equal('CORS_ORIGINS');
    expect(failure({ CORS_ORIGINS: 'ftp://files.example.com' }).variable).to.equal('CORS_ORIGINS');
    expect(failure({ CORS_ORIGINS: '*' }).variable).to.equal('CORS_ORIGINS');
  });

  it('reads each RATE_LIMIT_* variable (0 turns one off) and names the one that is wrong', () => {
    const config = loadConfig({
      RATE_LIMIT_LOGIN_FREE_FAILURES: '7',
      RATE_LIMIT_LOGIN_CLIENT_FREE_FAILURES: '0',
      RATE_LIMIT_LOGIN_MAX_DELAY_SECONDS: '60',
      RATE_LIMIT_REGISTER_PER_HOUR: '1',
      RATE_LIMIT_FORGOT_PASSWORD_PER_HOUR: '2',
      RATE_LIMIT_EMAIL_PER_ADDRESS_PER_HOUR: '3',
      RATE_LIMIT_UPLOADS_PER_MINUTE: '4',
      RATE_LIMIT_IMAGE_TRANSFORMS_PER_MINUTE: '5',
      SLOW_BODIES_PER_CLIENT: '6',
    });
    expect(config.core.rateLimits).to.deep.equal({
      loginFreeFailuresPerAccount: 7,
      loginFreeFailuresPerClient: 0,
      loginMaxDelaySeconds: 60,
      registrationsPerClientPerHour: 1,
      passwordResetsPerClientPerHour: 2,
      emailRequestsPerAddressPerHour: 3,
      uploadsPerAccountPerMinute: 4,
      imageTransformsPerClientPerMinute: 5,
      slowBodiesPerClient: 6,
    });
    expect(failure({ RATE_LIMIT_UPLOADS_PER_MINUTE: '-1' }).variable).to.equal('RATE_LIMIT_UPLOADS_PER_MINUTE');
    expect(failure({ RATE_LIMIT_LOGIN_MAX_DELAY_SECONDS: '0' }).variable).to.equal('RATE_LIMIT_LOGIN_MAX_DELAY_SECONDS');
  });

  it('reads the upload pacing: UPLOAD_IDLE_TIMEOUT_SECONDS (30), UPLOAD_MIN_BYTES_PER_SECOND (1024), UPLOAD_MIN_RATE_WINDOW_SECONDS (60); 0 turns the first two off', () => {
    expect(loadConfig({}).uploadPacing).to.deep.equal({ idleTimeoutMs: 30_000, minBytesPerSecond: 1024, windowMs: 60_000, slowAfterMs: 10_000 });
    expect(
      loadConfig({ UPLOAD_IDLE_TIMEOUT_SECONDS: '0', UPLOAD_MIN_BYTES_PER_SECOND: '0', UPLOAD_MIN_RATE_WINDOW_SECONDS: '5', SLOW_BODY_AFTER_SECONDS: '0' })
        .uploadPacing,
    ).to.deep.equal({ idleTimeoutMs: 0, minBytesPerSecond: 0, windowMs: 5000, slowAfterMs: 0 });
    expect(failure({ UPLOAD_IDLE_TIMEOUT_SECONDS: '1.5' }).variable).to.equal('UPLOAD_IDLE_TIMEOUT_SECONDS');
    expect(failure({ UPLOAD_MIN_BYTES_PER_SECOND: '-1' }).variable).to.equal('UPLOAD_MIN_BYTES_PER_SECOND');
    expect(failure({ UPLOAD_MIN_RATE_WINDOW_SECONDS: '0' }).variable).to.equal('UPLOAD_MIN_RATE_WINDOW_SECONDS');
  });

  it('reads PASSWORD_HASH_CONCURRENCY as 1–256', () => {
    expect(loadConfig({ PASSWORD_HASH_CONCURRENCY: '3' }).passwordHasher.concurrency).to.equal(3);
    expect(failure({ PASSWORD_HASH_CONCURRENCY: '0' }).variable).to.equal('PASSWORD_HASH_CONCURRENCY');
  });
});
