import type { Passkey } from './passkey.js';

/**
 * The relying party (WebAuthn §5.1.2): its id is the host name browsers bind passkeys to, and
 * `origin` is where the dashboard that runs the ceremonies is served (scheme, host and port).
 */
export interface RelyingParty {
  id: string;
  name: string;
  origin: string;
}

/** A credential the browser may use, or must not register again (`allowCredentials`, `excludeCredentials`). */
export interface CredentialDescriptor {
  /** base64url. */
  credentialId: string;
  transports: string[];
}

/** Options for `navigator.credentials.create()` or `.get()` as JSON (WebAuthn §5.4, §5.5; `PublicKeyCredential*OptionsJSON`), with their challenge. */
export interface CeremonyOptions {
  /** The challenge inside `options`, base64url. */
  challenge: string;
  /** What the browser receives, ready for `PublicKeyCredential.parseCreationOptionsFromJSON()` or the request equivalent. */
  options: Record<string, unknown>;
}

/** A passkey the authenticator created, as the registration response proves it. */
export interface VerifiedRegistration {
  verified: true;
  credentialId: string;
  /** COSE_Key, base64url. */
  publicKey: string;
  counter: number;
  transports: string[];
  /** The UV flag (WebAuthn §6.1): the authenticator checked the user (PIN, biometrics). */
  userVerified: boolean;
}

/** An assertion whose signature verified against the stored public key. */
export interface VerifiedAuthentication {
  verified: true;
  /** The authenticator's signature counter in this assertion. */
  counter: number;
  userVerified: boolean;
}

/** A response that does not verify, with a reason for people (no secrets in it). */
export interface FailedVerification {
  verified: false;
  reason: string;
}

/**
 * Port: the WebAuthn cryptography (building ceremony options, verifying attestation and
 * assertion signatures, origin and relying party id), so the core imports no WebAuthn library
 * (adapters/crypto/simplewebauthn-verifier.ts). The rules about challenges, counters, accounts
 * and user verification are the core's, not the verifier's: the verifier only says whether the
 * response is authentic and what it contains.
 */
export interface WebAuthnVerifier {
  /** Options to create a discoverable passkey that requires user verification; a fresh random challenge. `timeoutMs` in ms. */
  creationOptions(input: {
    rp: RelyingParty;
    user: { id: string; name: string };
    exclude: CredentialDescriptor[];
    timeoutMs: number;
  }): Promise<CeremonyOptions>;
  /** Options to sign in, with `allow` empty for discoverable credentials; user verification required. `timeoutMs` in ms. */
  requestOptions(input: { rp: RelyingParty; allow: CredentialDescriptor[]; timeoutMs: number }): Promise<CeremonyOptions>;
  /**
   * Reads the credential id and the challenge a response answers, without verifying anything.
   * @returns undefined when `response` is not a WebAuthn response (unreadable client data)
   */
  readResponse(response: unknown): { credentialId: string; challenge: string } | undefined;
  /** Verifies a registration response (WebAuthn §7.1) against `challenge` and the relying party. */
  verifyRegistration(input: { rp: RelyingParty; response: unknown; challenge: string }): Promise<VerifiedRegistration | FailedVerification>;
  /**
   * Verifies an authentication response (WebAuthn §7.2) against `challenge`, the relying party
   * and the stored credential's public key. It does not judge the signature counter: the core
   * does (see SignInWithPasskey).
   */
  verifyAuthentication(input: {
    rp: RelyingParty;
    response: unknown;
    challenge: string;
    credential: Pick<Passkey, 'credentialId' | 'publicKey' | 'transports'>;
  }): Promise<VerifiedAuthentication | FailedVerification>;
}
