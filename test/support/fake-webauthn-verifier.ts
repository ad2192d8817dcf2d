import type {
  CeremonyOptions,
  CredentialDescriptor,
  FailedVerification,
  RelyingParty,
  VerifiedAuthentication,
  VerifiedRegistration,
  WebAuthnVerifier,
} from '../../core/passkeys/webauthn-verifier.js';

/**
 * What a {@link FakeWebAuthnVerifier} accepts as a browser's response: the fields the real
 * cryptography would prove, written out. `key` plays the key pair: an assertion verifies when it
 * names the public key stored at registration.
 */
export interface FakeCredentialResponse {
  credentialId: string;
  challenge: string;
  key: string;
  counter: number;
  /** Default true. */
  userVerified?: boolean;
  /** False: a forged response (bad signature or attestation). */
  authentic?: boolean;
  transports?: string[];
}

/**
 * A {@link WebAuthnVerifier} for core tests: challenges are numbered (`challenge-1`, …), responses
 * are {@link FakeCredentialResponse}s, and the calls it received are recorded.
 */
export class FakeWebAuthnVerifier implements WebAuthnVerifier {
  private issued = 0;
  /** The options handed out, newest last. */
  readonly ceremonies: { kind: 'creation' | 'request'; rp: RelyingParty; credentials: CredentialDescriptor[]; challenge: string }[] = [];

  async creationOptions(input: {
    rp: RelyingParty;
    user: { id: string; name: string };
    exclude: CredentialDescriptor[];
    timeoutMs: number;
  }): Promise<CeremonyOptions> {
    const challenge = `challenge-${++this.issued}`;
    this.ceremonies.push({ kind: 'creation', rp: input.rp, credentials: input.exclude, challenge });
    return { challenge, options: { challenge, rp: { id: input.rp.id, name: input.rp.name }, user: input.user, timeout: input.timeoutMs } };
  }

  async requestOptions(input: { rp: RelyingParty; allow: CredentialDescriptor[]; timeoutMs: number }): Promise<CeremonyOptions> {
    const challenge = `challenge-${++this.issued}`;
    this.ceremonies.push({ kind: 'request', rp: input.rp, credentials: input.allow, challenge });
    return { challenge, options: { challenge, rpId: input.rp.id, allowCredentials: input.allow, timeout: input.timeoutMs } };
  }

  readResponse(response: unknown): { credentialId: string; challenge: string } | undefined {
    const r = response as Partial<FakeCredentialResponse> | null;
    if (typeof r !== 'object' || r === null || typeof r.credentialId !== 'string' || typeof r.challenge !== 'string') return undefined;
    return { credentialId: r.credentialId, challenge: r.challenge };
  }

  async verifyRegistration(input: { rp: RelyingParty; response: unknown; challenge: string }): Promise<VerifiedRegistration | FailedVerification> {
    const r = input.response as FakeCredentialResponse;
    if (r.authentic === false || r.challenge !== input.challenge) return { verified: false, reason: 'forged attestation.' };
    return {
      verified: true,
      credentialId: r.credentialId,
      publicKey: r.key,
      counter: r.counter,
      transports: r.transports ?? ['internal'],
      userVerified: r.userVerified ?? true,
    };
  }

  async verifyAuthentication(input: {
    rp: RelyingParty;
    response: unknown;
    challenge: string;
    credential: { credentialId: string; publicKey: string };
  }): Promise<VerifiedAuthentication | FailedVerification> {
    const r = input.response as FakeCredentialResponse;
    if (r.authentic === false || r.challenge !== input.challenge || r.key !== input.credential.publicKey)
      return { verified: false, reason: 'the signature does not verify.' };
    return { verified: true, counter: r.counter, userVerified: r.userVerified ?? true };
  }
}
