import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

/** A passkey held by a {@link SoftAuthenticator}: its id and private key, and the counter it signs with next. */
export interface SoftCredential {
  /** base64url. */
  id: string;
  privateKey: KeyObject;
  /** Each assertion increments it first, as an authenticator with a counter does; 0 keeps it at 0. */
  counter: number;
  userHandle: string;
}

const b64url = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

function counterBytes(counter: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(counter);
  return out;
}

/**
 * A software WebAuthn authenticator for HTTP tests (no browser): it answers
 * `PublicKeyCredentialCreationOptionsJSON` with a `none` attestation and an ES256 (P-256) key
 * (WebAuthn §6.5, §8.7), and request options with a signed assertion (§6.3.3), the user present
 * and verified (flags UP and UV). What it returns is what `PublicKeyCredential.toJSON()` gives.
 */
export class SoftAuthenticator {
  constructor(private readonly origin: string) {}

  /** Creates a credential for `options` (the body of the registration options); `counter` its starting value. */
  create(options: any, settings: { counter?: number; userVerified?: boolean } = {}): { credential: SoftCredential; response: Record<string, unknown> } {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const coseKey = new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]);
    const credentialId = randomBytes(16);
    const counter = settings.counter ?? 0;
    const flags = 0x01 | (settings.userVerified === false ? 0 : 0x04) | 0x40;
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credentialId.length);
    const authData = Buffer.concat([
      sha256(options.rp.id),
      Buffer.from([flags]),
      counterBytes(counter),
      Buffer.alloc(16),
      idLength,
      credentialId,
      Buffer.from(isoCBOR.encode(coseKey)),
    ]);
    const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin: this.origin, crossOrigin: false }));
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', new Uint8Array(authData)],
      ]) as never,
    );
    const id = b64url(credentialId);
    return {
      credential: { id, privateKey, counter, userHandle: options.user.id },
      response: {
        id,
        rawId: id,
        type: 'public-key',
        response: { clientDataJSON: b64url(clientDataJSON), attestationObject: b64url(attestationObject), transports: ['internal'] },
        clientExtensionResults: {},
        authenticatorAttachment: 'platform',
      },
    };
  }

  /** Signs an assertion for `options` (the body of the sign-in options) with `credential`; `challenge` replaces the options' one. */
  get(
    credential: SoftCredential,
    options: any,
    settings: { challenge?: string; counter?: number; userVerified?: boolean; rpId?: string } = {},
  ): Record<string, unknown> {
    if (settings.counter !== undefined) credential.counter = settings.counter;
    else if (credential.counter > 0) credential.counter += 1;
    const flags = 0x01 | (settings.userVerified === false ? 0 : 0x04);
    const authData = Buffer.concat([sha256(settings.rpId ?? options.rpId), Buffer.from([flags]), counterBytes(credential.counter)]);
    const clientDataJSON = Buffer.from(
      JSON.stringify({ type: 'webauthn.get', challenge: settings.challenge ?? options.challenge, origin: this.origin, crossOrigin: false }),
    );
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), credential.privateKey);
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}
