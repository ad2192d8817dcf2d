import { DomainError } from '../shared/errors.js';
import { passkeyName } from './passkey-name.js';
import { isPasskeyId, type Passkey } from './passkey.js';
import type { PasskeyRepository } from './passkey-repository.js';

/** `GET /auth/passkeys`: the account's passkeys, oldest first. */
export class ListPasskeys {
  constructor(private readonly deps: { passkeys: PasskeyRepository }) {}

  async execute(input: { userId: string }): Promise<Passkey[]> {
    return this.deps.passkeys.listForUser(input.userId);
  }
}

/**
 * `PATCH /auth/passkeys/:id`: renames one of the account's passkeys.
 * @throws DomainError PASSKEY_NOT_FOUND (404), also for another account's passkey; VALIDATION_FAILED (400) a bad name
 */
export class RenamePasskey {
  constructor(private readonly deps: { passkeys: PasskeyRepository }) {}

  async execute(input: { userId: string; id: string; name: string }): Promise<Passkey> {
    const name = passkeyName(input.name);
    const renamed = isPasskeyId(input.id) ? await this.deps.passkeys.rename({ userId: input.userId, id: input.id, name }) : undefined;
    if (!renamed) throw passkeyNotFound();
    return renamed;
  }
}

/**
 * `DELETE /auth/passkeys/:id`: removes one of the account's passkeys; it cannot sign in from then on.
 * @throws DomainError PASSKEY_NOT_FOUND (404), also for another account's passkey
 */
export class DeletePasskey {
  constructor(private readonly deps: { passkeys: PasskeyRepository }) {}

  async execute(input: { userId: string; id: string }): Promise<void> {
    if (!isPasskeyId(input.id) || !(await this.deps.passkeys.delete({ userId: input.userId, id: input.id }))) throw passkeyNotFound();
  }
}

function passkeyNotFound(): DomainError {
  return new DomainError('PASSKEY_NOT_FOUND', 'No passkey with this id on this account.');
}
