import { DomainError } from '../shared/errors.js';
import { MAX_FILE_NAME_LENGTH } from './stored-file.js';

/**
 * Turns an `x-file-name` header into a file name: `%XX` escapes are decoded as UTF-8
 * (`r%C3%A9sum%C3%A9.pdf` → `résumé.pdf`), control characters (C0, DEL, C1) are removed and
 * surrounding white space trimmed. An empty result is null.
 * @throws DomainError INVALID_FILE_NAME (400) when longer than 255 characters or not valid percent-encoded UTF-8
 */
export function parseFileName(header: string | undefined): string | null {
  if (header === undefined) return null;
  let name = header;
  if (/%[0-9A-Fa-f]{2}/.test(name)) {
    try {
      name = decodeURIComponent(name);
    } catch {
      throw new DomainError('INVALID_FILE_NAME', 'x-file-name has a percent escape that is not valid UTF-8.');
    }
  }
  // eslint-disable-next-line no-control-regex -- control characters are what the name loses
  name = name.replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trim();
  if ([...name].length > MAX_FILE_NAME_LENGTH) {
    throw new DomainError('INVALID_FILE_NAME', `The file name must be at most ${MAX_FILE_NAME_LENGTH} characters long.`);
  }
  return name === '' ? null : name;
}

/**
 * A file name given as text (the `name` of `PATCH /files/:id`, JSON, so no percent-decoding):
 * control characters removed and white space trimmed as {@link parseFileName} does; an empty
 * result or null is null (no name: downloads are named by the file id).
 * @throws DomainError INVALID_FILE_NAME (400) when longer than 255 characters
 */
export function cleanFileName(value: string | null): string | null {
  if (value === null) return null;
  // eslint-disable-next-line no-control-regex -- control characters are what the name loses
  const name = value.replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trim();
  if ([...name].length > MAX_FILE_NAME_LENGTH) {
    throw new DomainError('INVALID_FILE_NAME', `The file name must be at most ${MAX_FILE_NAME_LENGTH} characters long.`);
  }
  return name === '' ? null : name;
}
