import { type ParsedUrl, parseUrl } from '../shared/web-globals.js';
import { DomainError } from '../shared/errors.js';

/**
 * Decides whether a `redirect_to` URL may be used after e-mail confirmation or password reset:
 * the URL is parsed, and it must have no user info, the same origin as an allowed entry and a path
 * that starts with that entry's path (so `https://app.example.com@evil.example.net/` and
 * `https://app.example.com.evil.net/` are refused). Prevents open redirects (OWASP ASVS 5.1.5).
 */
export class RedirectPolicy {
  private readonly allowed: { origin: string; path: string }[];

  /** @param allowedUrls absolute http(s) URLs; each allows its origin and everything under its path */
  constructor(allowedUrls: readonly string[]) {
    this.allowed = allowedUrls.map((entry) => {
      const url = parseUrl(entry);
      return { origin: url.origin, path: url.pathname };
    });
  }

  /**
   * @returns the normalised URL (as the WHATWG URL parser serialises it)
   * @throws DomainError INVALID_REDIRECT_URL
   */
  check(redirectTo: string): string {
    let url: ParsedUrl;
    try {
      url = parseUrl(redirectTo);
    } catch {
      throw refused();
    }
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username !== '' || url.password !== '') {
      throw refused();
    }
    const ok = this.allowed.some((entry) => entry.origin === url.origin && underPath(url.pathname, entry.path));
    if (!ok) throw refused();
    return url.href;
  }
}

function underPath(path: string, prefix: string): boolean {
  if (prefix === '/' || path === prefix) return true;
  const base = prefix.endsWith('/') ? prefix : `${prefix}/`;
  return path.startsWith(base);
}

function refused(): DomainError {
  return new DomainError('INVALID_REDIRECT_URL', 'redirect_to must point under one of the allowed redirect URLs.');
}
