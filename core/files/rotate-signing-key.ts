import { DomainError } from '../shared/errors.js';
import type { SigningKeyRepository } from './signing-key-repository.js';
import type { UrlSigner } from './url-signer.js';

/**
 * `POST /settings/rotate-signing-key` (docs/private-files.md): gives the account a new signing key, so every
 * signed URL made before answers SIGNED_URL_INVALID from the next request on, on every process
 * (the key is read with the file, in the same lookup). URLs signed afterwards use the new key.
 * @throws DomainError USER_NOT_FOUND (404) when the account no longer exists
 */
export class RotateSigningKey {
  constructor(private readonly deps: { signingKeys: SigningKeyRepository; signer: UrlSigner }) {}

  async execute(input: { userId: string }): Promise<void> {
    if (!(await this.deps.signingKeys.replace({ userId: input.userId, key: this.deps.signer.newKey() }))) {
      throw new DomainError('USER_NOT_FOUND', 'No such account.');
    }
  }
}
