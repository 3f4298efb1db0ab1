/** Sign-in: as a page, or as a dialog over the current page when the session ended mid-work (nothing on the page is lost). */
import { useEffect, useState } from 'preact/hooks';
import { session, signInProviders, type Providers } from '../api/session';
import { ProblemNotice } from '../components/ProblemNotice';

export function SignInForm({ username: fixed, onDone }: { username?: string; onDone?: () => void }) {
  const [username, setUsername] = useState(fixed ?? '');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  return (
    <form
      class="signin"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        try {
          await session.login(username.trim(), password);
          onDone?.();
        } catch (err) {
          setError(err);
          setPassword('');
        } finally {
          setBusy(false);
        }
      }}
    >
      <label for="signin-username">Username</label>
      <input
        id="signin-username"
        name="username"
        autocomplete="username"
        required
        value={username}
        readOnly={fixed !== undefined}
        onInput={(e) => setUsername((e.target as HTMLInputElement).value)}
        autoFocus={fixed === undefined}
      />
      <label for="signin-password">Password</label>
      <input
        id="signin-password"
        name="password"
        type="password"
        autocomplete="current-password"
        required
        value={password}
        onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
        autoFocus={fixed !== undefined}
      />
      <ProblemNotice error={error} />
      <button type="submit" class="primary" disabled={busy}>
        Sign in
      </button>
    </form>
  );
}

/** What the console says when a single sign-on came back without a session (`#sso_error=<code>`). */
export const SSO_ERRORS: Record<string, string> = {
  access_denied: 'The sign-in was cancelled or refused at the identity provider.',
  login_expired: 'The sign-in took too long or was already used. Start it again.',
  login_failed: 'The sign-in could not be verified. Start it again from this page.',
  no_role:
    'Your account at the identity provider is in no group that FieldLens gives a role to. Ask an administrator to add you to one.',
  user_disabled: 'Your FieldLens account is disabled. Ask an administrator.',
  quota_exceeded: "The license's user limit is reached, so no new user can be created. Ask an administrator.",
  provider_unavailable: 'The identity provider cannot be reached right now. Try again later.',
};

function useProviders(): Providers | null {
  const [providers, setProviders] = useState<Providers | null>(null);
  useEffect(() => {
    void signInProviders().then(setProviders);
  }, []);
  return providers;
}

function SsoLink({ providers }: { providers: Providers | null }) {
  if (!providers?.oidc.enabled) return null;
  return (
    <p>
      <a class="button primary" href="/api/v1/auth/oidc/start" data-testid="sso-start">
        Sign in with {providers.oidc.name ?? 'SSO'}
      </a>
    </p>
  );
}

/**
 * Signing in again after the session ended mid-work (the dialog over the page): the password form for the same user,
 * and the SSO button when single sign-on is on (it leaves the page: the provider's pages come first).
 */
export function SignInAgain({ username }: { username: string }) {
  const providers = useProviders();
  return (
    <>
      <SsoLink providers={providers} />
      {providers !== null && providers.password && <SignInForm username={username} />}
    </>
  );
}

export function SignInPage() {
  const providers = useProviders();
  const ssoError = session.ssoError;
  return (
    <main id="main" class="signin-page">
      <h1>FieldLens</h1>
      <p>Sign in to review field classifications.</p>
      {ssoError !== null && (
        <p class="notice error" role="alert" data-testid="sso-error">
          {SSO_ERRORS[ssoError] ?? 'The single sign-on did not complete. Start it again.'}
        </p>
      )}
      <SsoLink providers={providers} />
      {providers !== null && providers.password && <SignInForm />}
    </main>
  );
}
