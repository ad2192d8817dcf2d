import { expect } from 'chai';
import { isDatabaseUnavailable, translateDatabaseError } from '../../adapters/persistence/sql/database-unavailable.js';
import { DomainError } from '../../core/shared/errors.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('database outages become DATABASE_UNAVAILABLE (503), query errors do not', () => {
  it('recognises locks, I/O errors, a full disk and unreachable servers', () => {
    for (const code of [
      'SQLITE_BUSY',
      'SQLITE_BUSY_SNAPSHOT',
      'SQLITE_LOCKED',
      'SQLITE_IOERR_FSYNC',
      'SQLITE_FULL',
      'SQLITE_CANTOPEN',
      'SQLITE_READONLY',
      'ECONNREFUSED',
      'ECONNRESET',
      'EIO',
      'ENOSPC',
      '08006',
      '08001',
      '53300',
      '57P01',
      '57014',
      '40001',
      '40P01',
    ]) {
      expect(isDatabaseUnavailable(withCode(code)), code).to.equal(true);
    }
    for (const message of [
      'timeout exceeded when trying to connect',
      'Connection terminated unexpectedly',
      'Client has encountered a connection error and is not queryable',
    ]) {
      expect(isDatabaseUnavailable(new Error(message)), message).to.equal(true);
    }
  });

  it('leaves constraint violations, syntax errors and bugs alone', () => {
    for (const code of ['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_ERROR', '23505', '23503', '42P01', '22P02']) {
      expect(isDatabaseUnavailable(withCode(code)), code).to.equal(false);
    }
    expect(isDatabaseUnavailable(new TypeError('undefined is not a function'))).to.equal(false);
    const unique = withCode('23505');
    expect(translateDatabaseError(unique)).to.equal(unique);
  });

  it('keeps the cause for the logs and never re-wraps a DomainError', () => {
    const cause = withCode('SQLITE_BUSY', 'database is locked');
    const translated = translateDatabaseError(cause) as DomainError;
    expect(translated).to.be.instanceOf(DomainError);
    expect(translated.code).to.equal('DATABASE_UNAVAILABLE');
    expect(translated.message).to.not.contain('locked');
    expect(translated.cause).to.equal(cause);
    const domain = new DomainError('FILE_NOT_FOUND', 'no');
    expect(translateDatabaseError(domain)).to.equal(domain);
  });
});
