import type { AuthenticationResponseJSON, AuthenticatorTransport, RegistrationResponseJSON } from '@simplewebauthn/server';
import type {
  CeremonyOptions,
  CredentialDescriptor,
  FailedVerification,
  RelyingParty,
  VerifiedAuthentication,
  VerifiedRegistration,
  WebAuthnVerifier,
} from '../../core/passkeys/webauthn-verifier.js';

let library: Promise<typeof import('@simplewebauthn/server')> | undefined;
/**
 * @simplewebauthn/server, imported on first use: with its ASN.1 and X.509 packages it is the
 * largest library the server has, and a process that never sees a passkey ceremony does not load it.
 */
function simpleWebAuthn(): Promise<typeof import('@simplewebauthn/server')> {
  return (library ??= import('@simplewebauthn/server'));
}

/**
 * {@link WebAuthnVerifier} with @simplewebauthn/server: options with a fresh 32-byte random
 * challenge, `attestation: 'none'` (Hangar trusts any authenticator model, so it asks for no
 * attestation statement), discoverable credentials (`residentKey: 'required'`) and user
 * verification required; responses verified for origin, relying party id, challenge, signature
 * and the UV flag. Library errors (malformed or forged responses) become `{ verified: false, reason }`.
 */
export class SimpleWebAuthnVerifier implements WebAuthnVerifier {
  async creationOptions(input: {
    rp: RelyingParty;
    user: { id: string; name: string };
    exclude: CredentialDescriptor[];
    timeoutMs: number;
  }): Promise<CeremonyOptions> {
    const { generateRegistrationOptions } = await simpleWebAuthn();
    const options = await generateRegistrationOptions({
      rpName: input.rp.name,
      rpID: input.rp.id,
      userName: input.user.name,
      // The user handle (WebAuthn §5.4.3): the account id, never the e-mail address.
      userID: new TextEncoder().encode(input.user.id),
      timeout: input.timeoutMs,
      attestationType: 'none',
      excludeCredentials: input.exclude.map(descriptor),
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    });
    return { challenge: options.challenge, options: options as unknown as Record<string, unknown> };
  }

  async requestOptions(input: { rp: RelyingParty; allow: CredentialDescriptor[]; timeoutMs: number }): Promise<CeremonyOptions> {
    const { generateAuthenticationOptions } = await simpleWebAuthn();
    const options = await generateAuthenticationOptions({
      rpID: input.rp.id,
      allowCredentials: input.allow.map(descriptor),
      timeout: input.timeoutMs,
      userVerification: 'required',
    });
    return { challenge: options.challenge, options: options as unknown as Record<string, unknown> };
  }

  readResponse(response: unknown): { credentialId: string; challenge: string } | undefined {
    if (typeof response !== 'object' || response === null) return undefined;
    const { id, response: inner } = response as { id?: unknown; response?: { clientDataJSON?: unknown } };
    if (typeof id !== 'string' || id === '' || typeof inner !== 'object' || inner === null || typeof inner.clientDataJSON !== 'string') return undefined;
    try {
      const clientData = JSON.parse(Buffer.from(inner.clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown };
      return typeof clientData.challenge === 'string' && clientData.challenge !== '' ? { credentialId: id, challenge: clientData.challenge } : undefined;
    } catch {
      return undefined;
    }
  }

  async verifyRegistration(input: { rp: RelyingParty; response: unknown; challenge: string }): Promise<VerifiedRegistration | FailedVerification> {
    const { verifyRegistrationResponse } = await simpleWebAuthn();
    try {
      const result = await verifyRegistrationResponse({
        response: input.response as RegistrationResponseJSON,
        expectedChallenge: input.challenge,
        expectedOrigin: input.rp.origin,
        expectedRPID: input.rp.id,
        requireUserVerification: true,
      });
      if (!result.verified) return { verified: false, reason: 'the attestation does not verify.' };
      const { credential, userVerified } = result.registrationInfo;
      return {
        verified: true,
        credentialId: credential.id,
        publicKey: Buffer.from(credential.publicKey).toString('base64url'),
        counter: credential.counter,
        transports: credential.transports ?? [],
        userVerified,
      };
    } catch (error) {
      return { verified: false, reason: reasonOf(error) };
    }
  }

  async verifyAuthentication(input: {
    rp: RelyingParty;
    response: unknown;
    challenge: string;
    credential: { credentialId: string; publicKey: string; transports: string[] };
  }): Promise<VerifiedAuthentication | FailedVerification> {
    const { verifyAuthenticationResponse } = await simpleWebAuthn();
    try {
      const result = await verifyAuthenticationResponse({
        response: input.response as AuthenticationResponseJSON,
        expectedChallenge: input.challenge,
        expectedOrigin: input.rp.origin,
        expectedRPID: input.rp.id,
        credential: {
          id: input.credential.credentialId,
          publicKey: new Uint8Array(Buffer.from(input.credential.publicKey, 'base64url')),
          // The counter rule belongs to the core (SignInWithPasskey), which refuses a regression with
          // its own error code; 0 keeps the library's copy of that check from answering first.
          counter: 0,
          transports: input.credential.transports,
        },
        requireUserVerification: true,
      });
      if (!result.verified) return { verified: false, reason: 'the signature does not verify.' };
      return { verified: true, counter: result.authenticationInfo.newCounter, userVerified: result.authenticationInfo.userVerified };
    } catch (error) {
      return { verified: false, reason: reasonOf(error) };
    }
  }
}

function descriptor(credential: CredentialDescriptor): { id: string; transports?: AuthenticatorTransport[] } {
  return { id: credential.credentialId, transports: credential.transports as AuthenticatorTransport[] };
}

/** The library's message (it describes the check that failed, never key material), as a sentence. */
function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.endsWith('.') ? message : `${message}.`;
}
