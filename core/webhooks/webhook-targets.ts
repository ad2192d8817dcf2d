import type { ParsedUrl } from '../shared/web-globals.js';

/**
 * Port: where webhooks may be sent (docs/webhooks.md, "Safe targets"). The adapter resolves the host
 * and refuses loopback, private, link-local, unique-local, multicast and other non-public addresses,
 * unless the service allows private networks.
 */
export interface WebhookTargets {
  /**
   * Checks a URL already parsed by the core (scheme, no credentials) against the address rules.
   * @throws DomainError WEBHOOK_URL_REFUSED (400) naming the reason
   */
  check(url: ParsedUrl): Promise<void>;
}
