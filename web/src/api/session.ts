/**
 * The login session: where the tokens live, background refresh, and the one place that retries a request after a
 * refresh. Access token: memory only (never written anywhere script-readable beyond this module). Refresh token:
 * sessionStorage of this tab, so a reload keeps the session but closing the tab ends it (docs/console.md says why).
 */
type Tokens = { access_token: string; refresh_token: string; expires_in: number };
export type Me = {
  id: string;
  username: string;
  email: string;
  roles: { role: string; scope: string }[];
  permissions: string[];
  sku_tier: string;
};
export type Problem = {
  type?: string;
  title?: string;
  status: number;
  detail?: string;
  code?: string;
  errors?: { path: string; message: string }[];
};

const REFRESH_KEY = 'fieldlens.refresh_token';
/** Refresh this long before the access token expires (and at 80 % of a short lifetime). */
const REFRESH_AHEAD_MS = 60_000;

export class ProblemError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail ?? problem.title ?? `HTTP ${problem.status}`);
    this.name = 'ProblemError';
  }
  get code(): string | undefined {
    return this.problem.code;
  }
}

type Listener = () => void;

/** The token pair of a sign-in answer, or its problem as a ProblemError. */
async function tokenResponse(request: Promise<Response>): Promise<Tokens> {
  const response = await request;
  if (!response.ok) throw new ProblemError(await problemOf(response));
  return (await response.json()) as Tokens;
}

export type Providers = { password: boolean; oidc: { enabled: boolean; name: string | null } };

/** How one can sign in here (no token needed); both ways unknown when the server cannot be asked. */
export async function signInProviders(): Promise<Providers> {
  try {
    const response = await fetch('/api/v1/auth/providers');
    if (response.ok) return (await response.json()) as Providers;
  } catch {
    // fall through: offer the password form, the server will say what is wrong
  }
  return { password: true, oidc: { enabled: false, name: null } };
}

class Session {
  private accessToken: string | null = null;
  private refreshing: Promise<boolean> | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private listeners = new Set<Listener>();
  /** Requests waiting for the user to sign in again after the session ended mid-work. */
  private waiting: Array<(ok: boolean) => void> = [];
  me: Me | null = null;
  /** True while a signed-in user's session has ended and the sign-in dialog is shown over the page. */
  expired = false;

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(): void {
    for (const l of this.listeners) l();
  }

  can(permission: string): boolean {
    return this.me?.permissions.includes(permission) ?? false;
  }

  /** Why the last single sign-on ended without a session (`#sso_error=` on arrival), for the sign-in page to say. */
  ssoError: string | null = null;

  /**
   * On start: a single sign-on's `#sso_code=` is exchanged for a session (and removed from the address and history
   * first: it is single use), `#sso_error=` is kept for the sign-in page; otherwise a refresh token kept by this tab
   * resumes the session (a reload does not sign the user out).
   */
  async resume(): Promise<boolean> {
    const fragment = new URLSearchParams(location.hash.slice(1));
    const code = fragment.get('sso_code');
    const error = fragment.get('sso_error');
    if (code !== null || error !== null) history.replaceState(null, '', location.pathname + location.search);
    if (error !== null) this.ssoError = error;
    if (code !== null) {
      try {
        await this.signIn(
          await tokenResponse(
            fetch('/api/v1/auth/oidc/token', {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ code }),
            }),
          ),
        );
        return true;
      } catch {
        this.ssoError = 'login_expired';
        return false;
      }
    }
    if (!sessionStorage.getItem(REFRESH_KEY)) return false;
    if (!(await this.refresh())) return false;
    await this.loadMe();
    return true;
  }

  async login(username: string, password: string): Promise<void> {
    const tokens = await tokenResponse(
      fetch('/api/v1/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username, password }),
      }),
    );
    await this.signIn(tokens);
  }

  private async signIn(tokens: Tokens): Promise<void> {
    this.store(tokens);
    this.ssoError = null;
    const previous = this.me?.id;
    await this.loadMe();
    this.expired = false;
    // The same user signing in again picks up where the page was; someone else does not inherit waiting requests.
    const resumed = previous === undefined || previous === this.me?.id;
    for (const resolve of this.waiting.splice(0)) resolve(resumed);
    this.emit();
  }

  async logout(): Promise<void> {
    const refresh = sessionStorage.getItem(REFRESH_KEY);
    this.clear();
    this.me = null;
    this.expired = false;
    this.emit();
    if (refresh) {
      await fetch('/api/v1/auth/logout', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ refresh_token: refresh }),
      }).catch(() => undefined);
    }
  }

  private async loadMe(): Promise<void> {
    const response = await this.fetch(new Request('/api/v1/auth/me'));
    if (!response.ok) throw new ProblemError(await problemOf(response));
    this.me = (await response.json()) as Me;
    this.emit();
  }

  private store(tokens: Tokens): void {
    this.accessToken = tokens.access_token;
    sessionStorage.setItem(REFRESH_KEY, tokens.refresh_token);
    clearTimeout(this.timer);
    const lifetime = tokens.expires_in * 1000;
    const delay = Math.max(1000, Math.min(lifetime - REFRESH_AHEAD_MS, lifetime * 0.8));
    this.timer = setTimeout(() => void this.refresh(), delay);
  }

  private clear(): void {
    this.accessToken = null;
    clearTimeout(this.timer);
    sessionStorage.removeItem(REFRESH_KEY);
  }

  /** Exchanges the refresh token for a new pair; one exchange at a time (a rotated token may be used only once). */
  refresh(): Promise<boolean> {
    this.refreshing ??= (async () => {
      const token = sessionStorage.getItem(REFRESH_KEY);
      if (!token) return false;
      try {
        const response = await fetch('/api/v1/auth/refresh', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ refresh_token: token }),
        });
        if (!response.ok) {
          if (response.status === 401) this.clear();
          return false;
        }
        this.store((await response.json()) as Tokens);
        return true;
      } catch {
        return false;
      } finally {
        queueMicrotask(() => (this.refreshing = null));
      }
    })();
    return this.refreshing;
  }

  /** The session ended under a signed-in user: show the sign-in dialog over the page and wait for it. */
  private waitForSignIn(): Promise<boolean> {
    if (!this.me) return Promise.resolve(false);
    this.expired = true;
    this.emit();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /**
   * fetch with the bearer token. A 401 token_expired refreshes and retries once; a session that cannot be refreshed
   * asks the user to sign in again (the page stays as it is) and then retries.
   */
  fetch = async (request: Request): Promise<Response> => {
    const retry = request.clone();
    const used = this.accessToken;
    const response = await this.send(request);
    if (response.status !== 401 || request.url.includes('/api/v1/auth/login')) return response;
    const problem = (await response
      .clone()
      .json()
      .catch(() => ({}))) as Problem;
    // Parallel calls that expired together: the first refreshes; one answered after that refresh finished retries
    // with the new token instead of refreshing again (a refresh token is good for one use).
    if (problem.code === 'token_expired' && this.accessToken !== null && this.accessToken !== used)
      return this.send(retry);
    if (problem.code === 'token_expired' && (await this.refresh())) return this.send(retry);
    if ((problem.code === 'token_expired' || problem.code === 'unauthorized') && (await this.waitForSignIn()))
      return this.send(retry);
    return response;
  };

  private send(request: Request): Promise<Response> {
    if (this.accessToken) request.headers.set('authorization', `Bearer ${this.accessToken}`);
    return fetch(request);
  }
}

export async function problemOf(response: Response): Promise<Problem> {
  try {
    const body = (await response.json()) as Problem;
    if (typeof body === 'object' && body !== null) return { ...body, status: response.status };
  } catch {
    // not a problem+json body (a proxy's error page): fall through
  }
  return { status: response.status, title: response.statusText || `HTTP ${response.status}` };
}

export const session = new Session();
