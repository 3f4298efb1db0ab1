/**
 * A real OpenID provider (oidc-provider) on 127.0.0.1 for the single sign-on tests, with its own development login and
 * consent pages, and a browser stand-in (fetch with a cookie jar) that goes through them the way a person would.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestAccount {
  preferred_username?: string;
  email?: string;
  groups?: string[];
}

export interface TestProvider {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** The people the provider knows, by the login typed on its sign-in page (changed between sign-ins by tests). */
  readonly accounts: Map<string, TestAccount>;
  /** Lifetime of the authorization codes it issues, in seconds (default 60). */
  codeTtlSeconds: number;
  close(): Promise<void>;
}

/** The client id of the provider's public client (no secret). */
export const PUBLIC_CLIENT_ID = 'fieldlens-public';

export async function startTestProvider(options: { redirectUri: string | string[] }): Promise<TestProvider> {
  const accounts = new Map<string, TestAccount>();
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const state = { codeTtlSeconds: 60 };
  const clientId = 'fieldlens';
  const clientSecret = 'a-test-client-secret-of-enough-length-0001';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri].flat(),
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
      // A public client: no secret, PKCE only.
      {
        client_id: PUBLIC_CLIENT_ID,
        redirect_uris: [options.redirectUri].flat(),
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
    ],
    // Any login typed on the development sign-in page is an account; its claims come from `accounts` at that moment.
    findAccount: (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: () => {
        const account = accounts.get(id) ?? {};
        return { sub: `subject-${id}`, ...account };
      },
    }),
    claims: { openid: ['sub'], profile: ['preferred_username', 'groups'], email: ['email'] },
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
    ttl: {
      AuthorizationCode: () => state.codeTtlSeconds,
      Session: 3600,
      Interaction: 600,
      Grant: 3600,
      IdToken: 3600,
      AccessToken: 3600,
    },
    cookies: { keys: ['test-cookie-key-of-the-provider-00001'] },
  });
  server.on('request', provider.callback());
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    get codeTtlSeconds() {
      return state.codeTtlSeconds;
    },
    set codeTtlSeconds(value: number) {
      state.codeTtlSeconds = value;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A browser's cookies for one origin (enough for the provider's session and interaction cookies). */
class CookieJar {
  private readonly cookies = new Map<string, string>();
  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair?.indexOf('=') ?? -1;
      if (pair === undefined || at < 0) continue;
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1);
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([n, v]) => `${n}=${v}`).join('; ');
  }
}

/**
 * Goes from the provider's authorization URL through its sign-in page (typing `login`) and consent page, as a browser
 * would, until the provider redirects to `redirectUri`; answers that URL (with `code`, `state`, `iss`).
 */
export async function signInAtProvider(authorizationUrl: string, redirectUri: string, login: string): Promise<URL> {
  const jar = new CookieJar();
  let next: { url: string; method: 'GET' | 'POST'; body?: URLSearchParams } = { url: authorizationUrl, method: 'GET' };
  for (let step = 0; step < 20; step++) {
    const response = await fetch(next.url, {
      method: next.method,
      redirect: 'manual',
      headers: { cookie: jar.header(), ...(next.body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(next.body ? { body: next.body } : {}),
    });
    jar.store(response);
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location !== null) {
      const target = new URL(location, next.url);
      if (target.href.startsWith(redirectUri)) return target;
      next = { url: target.href, method: 'GET' };
      continue;
    }
    const html = await response.text();
    if (response.status !== 200) throw new Error(`provider answered ${response.status}: ${html.slice(0, 300)}`);
    // The development pages hold one form: the sign-in (prompt=login) or the consent (prompt=consent).
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    const prompt = /name="prompt" value="([a-z]+)"/.exec(html)?.[1];
    if (action === undefined || prompt === undefined)
      throw new Error(`no form on the provider's page: ${html.slice(0, 300)}`);
    const body = new URLSearchParams({ prompt });
    if (prompt === 'login') {
      body.set('login', login);
      body.set('password', 'any password: the development page accepts all');
    }
    next = { url: new URL(action.replace(/&amp;/g, '&'), next.url).href, method: 'POST', body };
  }
  throw new Error('the provider never redirected back');
}
