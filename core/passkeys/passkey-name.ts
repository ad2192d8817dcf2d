import { DomainError } from '../shared/errors.js';
import { PASSKEY_NAME_MAX_LENGTH } from './passkey.js';

/**
 * A passkey name as stored: trimmed, 1–{@link PASSKEY_NAME_MAX_LENGTH} characters, no control characters.
 * @throws DomainError VALIDATION_FAILED (400)
 */
export function passkeyName(name: string): string {
  const trimmed = name.trim();
  // eslint-disable-next-line no-control-regex -- control characters are what the name must not contain
  if (trimmed.length === 0 || trimmed.length > PASSKEY_NAME_MAX_LENGTH || /[\u0000-\u001f\u007f]/.test(trimmed)) {
    throw new DomainError('VALIDATION_FAILED', `A passkey name is 1 to ${PASSKEY_NAME_MAX_LENGTH} characters, without control characters.`, [
      { in: 'body', path: '/name', message: `Expected 1 to ${PASSKEY_NAME_MAX_LENGTH} printable characters` },
    ]);
  }
  return trimmed;
}
