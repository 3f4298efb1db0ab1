/** Sign-in: as a page, or as a dialog over the current page when the session ended mid-work (nothing on the page is lost). */
import { useState } from 'preact/hooks';
import { session } from '../api/session';
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
      <input id="signin-username" name="username" autocomplete="username" required value={username} readOnly={fixed !== undefined} onInput={(e) => setUsername((e.target as HTMLInputElement).value)} autoFocus={fixed === undefined} />
      <label for="signin-password">Password</label>
      <input id="signin-password" name="password" type="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword((e.target as HTMLInputElement).value)} autoFocus={fixed !== undefined} />
      <ProblemNotice error={error} />
      <button type="submit" class="primary" disabled={busy}>
        Sign in
      </button>
    </form>
  );
}

export function SignInPage() {
  return (
    <main id="main" class="signin-page">
      <h1>FieldLens</h1>
      <p>Sign in to review field classifications.</p>
      <SignInForm />
    </main>
  );
}
