import { MINUTE_MS } from '../shared/time.js';
import { parseUrl } from '../shared/web-globals.js';
import type { RelyingParty } from './webauthn-verifier.js';

/** How long a browser has to answer a challenge, in ms (WebAuthn §15.1 recommends 5 to 10 minutes with user verification). */
export const PASSKEY_CHALLENGE_TTL_MS = 5 * MINUTE_MS;

/**
 * The relying party of this service, from its public API address (`PUBLIC_API_URL`), where the
 * dashboard is served: the id is its host name (WebAuthn §5.1.2: a registrable domain suffix of
 * the origin, here the host itself), the origin its scheme, host and port.
 * Browsers accept `localhost` over plain HTTP as a secure context; any other host needs HTTPS.
 */
export function relyingPartyOf(publicApiUrl: string): RelyingParty {
  const url = parseUrl(publicApiUrl);
  return { id: url.hostname, name: 'Hangar', origin: url.origin };
}
