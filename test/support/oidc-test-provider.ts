// A real OpenID Provider (the `oidc-provider` package) on a local port, for the single sign-on
// tests, and a small cookie-keeping "browser" that walks the authorization code flow through it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/** What the provider says about one of its accounts. */
export interface TestOidcAccount {
  /** The `sub` claim. */
  sub: string;
  email?: string;
  email_verified?: boolean;
}

export const TEST_CLIENT_ID = 'hangar-test';
export const TEST_CLIENT_SECRET = 'hangar-test-secret-that-is-long-enough';

/** A running test provider: set `signInAs` before a sign-in, as the person would type their login at the provider. */
export interface TestOidcProvider {
  issuer: string;
  /** The account the next sign-in at the provider logs in as. */
  signInAs: TestOidcAccount;
  /** Configures the provider's one client with the redirect URI it accepts (before the first sign-in). */
  useRedirectUri(uri: string): void;
  close(): Promise<void>;
}

/**
 * Starts the provider on 127.0.0.1 (port 0). Logging in and consenting happen without a form: the
 * provider's interaction URL logs in {@link TestOidcProvider.signInAs} and grants every scope asked.
 * The provider itself is built once the redirect URI is known (the issuer's port must be known first).
 */
export async function startTestOidcProvider(): Promise<TestOidcProvider> {
  let provider: any;
  const server: Server = createServer((req, res) => {
    if (!provider) {
      res.statusCode = 503;
      res.end('provider not configured yet');
      return;
    }
    if (req.url?.startsWith('/interaction/')) {
      finishInteraction(req, res).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
      return;
    }
    provider.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const accounts = new Map<string, TestOidcAccount>();
  const handle: TestOidcProvider = {
    issuer,
    signInAs: { sub: 'nobody' },
    useRedirectUri(uri: string) {
      provider = new Provider(issuer, {
        clients: [
          { client_id: TEST_CLIENT_ID, client_secret: TEST_CLIENT_SECRET, redirect_uris: [uri], grant_types: ['authorization_code'], response_types: ['code'] },
        ],
        claims: { openid: ['sub'], email: ['email', 'email_verified'] },
        scopes: ['openid', 'email', 'profile'],
        cookies: { keys: ['oidc-test-cookie-key'] },
        pkce: { required: () => true },
        features: { devInteractions: { enabled: false } },
        interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
        findAccount: async (_ctx: unknown, id: string) => {
          const account = accounts.get(id);
          return account && { accountId: id, claims: async () => ({ ...account }) };
        },
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  async function finishInteraction(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    const account = handle.signInAs;
    accounts.set(account.sub, account);
    const grant = new provider.Grant({ accountId: account.sub, clientId: details.params.client_id });
    grant.addOIDCScope(String(details.params.scope));
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { login: { accountId: account.sub }, consent: { grantId } }, { mergeWithLastSubmission: false });
  }

  return handle;
}

/**
 * A browser, as far as the sign-in needs one: follows redirects one at a time, keeps the
 * provider's cookies, and stops at the first URL `stopAt` accepts (Hangar's callback), which it returns.
 */
export async function browseUntil(start: string, stopAt: (url: URL) => boolean): Promise<URL> {
  const cookies = new Map<string, string>();
  let url = new URL(start);
  for (let hop = 0; hop < 20; hop += 1) {
    if (stopAt(url)) return url;
    const response = await fetch(url, { redirect: 'manual', headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair.indexOf('=');
      cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
    const location = response.headers.get('location');
    await response.arrayBuffer();
    if (!location) throw new Error(`${url.href} answered ${response.status} without a redirect`);
    url = new URL(location, url);
  }
  throw new Error('too many redirects');
}
