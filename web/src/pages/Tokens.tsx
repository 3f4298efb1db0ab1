/**
 * API tokens: create one (name, expiry, permissions among your own), see its secret once with a copy button, list
 * (name, prefix, permissions, expiry, last use) and revoke with a confirmation. Holders of user:read may look at
 * another user's tokens (and revoke them with user:write).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ok, type Schemas, type User } from '../api/client';
import { session } from '../api/session';
import { Dialog } from '../components/Dialog';
import { ProblemNotice } from '../components/ProblemNotice';
import { StatusLine } from '../components/Status';

type ApiToken = Schemas<'/api/v1/tokens', 'get'>['items'][number];
type CreatedToken = Schemas<'/api/v1/tokens', 'post', 201>;
type Permission = NonNullable<ApiToken['permissions']>[number];

function day(iso: string): string {
  return iso.slice(0, 10);
}

function lastUsed(iso: string | null): string {
  return iso === null ? 'never' : `${iso.slice(0, 16).replace('T', ' ')} UTC`;
}

export function TokensPage() {
  const me = session.me;
  const canReadUsers = session.can('user:read');
  const [owner, setOwner] = useState<string>(me?.id ?? '');
  const [users, setUsers] = useState<User[] | null>(null);
  const [tokens, setTokens] = useState<ApiToken[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [status, setStatus] = useState('');
  const [created, setCreated] = useState<CreatedToken | null>(null);
  const [revoking, setRevoking] = useState<ApiToken | null>(null);
  const own = owner === me?.id;

  const load = (userId: string) =>
    ok(api.GET('/api/v1/tokens', { params: { query: userId === me?.id ? {} : { user_id: userId } } })).then(
      (r) => setTokens(r.items),
      setError,
    );

  useEffect(() => {
    void load(owner);
  }, [owner]);
  useEffect(() => {
    if (canReadUsers) void ok(api.GET('/api/v1/users')).then((r) => setUsers(r.items), setError);
  }, []);
  if (!me) return null;

  const revoke = async (token: ApiToken) => {
    setError(null);
    try {
      await ok(api.DELETE('/api/v1/tokens/{id}', { params: { path: { id: token.id } } }));
      if (created?.id === token.id) setCreated(null);
      await load(owner);
      setStatus(`Revoked the token ${token.name}.`);
    } catch (e) {
      setError(e);
    } finally {
      setRevoking(null);
    }
  };

  return (
    <section aria-labelledby="tokens-title">
      <h1 id="tokens-title">API tokens</h1>
      <p class="muted">
        A token lets a script or scanner call the API as you: send it as <code>Authorization: Bearer flk_…</code>. It
        never has more permissions than you have at the time it is used.
      </p>
      <StatusLine message={status} />
      <ProblemNotice error={error} />
      {canReadUsers && users && <OwnerPicker users={users} me={me.id} owner={owner} onChange={setOwner} />}
      {created && <NewToken created={created} onDone={() => setCreated(null)} />}
      {tokens && tokens.length === 0 && <p>{own ? 'You have no API tokens.' : 'This user has no API tokens.'}</p>}
      {tokens && tokens.length > 0 && (
        <TokensTable tokens={tokens} canRevoke={own || session.can('user:write')} onRevoke={setRevoking} />
      )}
      {own && (
        <CreateTokenForm
          permissions={me.permissions as Permission[]}
          onCreated={(token) => {
            setCreated(token);
            setStatus(`Created the token ${token.name}. Copy it now: it is shown only once.`);
            void load(owner);
          }}
          onError={setError}
        />
      )}
      {revoking && (
        <RevokeDialog token={revoking} onRevoke={() => void revoke(revoking)} onClose={() => setRevoking(null)} />
      )}
    </section>
  );
}

function OwnerPicker({
  users,
  me,
  owner,
  onChange,
}: {
  users: User[];
  me: string;
  owner: string;
  onChange: (userId: string) => void;
}) {
  return (
    <p>
      <label for="token-owner">Tokens of</label>{' '}
      <select id="token-owner" value={owner} onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
        {users.map((u) => (
          <option key={u.id} value={u.id}>
            {u.id === me ? `${u.username} (you)` : u.username}
          </option>
        ))}
      </select>
    </p>
  );
}

function TokensTable({
  tokens,
  canRevoke,
  onRevoke,
}: {
  tokens: ApiToken[];
  canRevoke: boolean;
  onRevoke: (token: ApiToken) => void;
}) {
  return (
    <table aria-label="API tokens">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Prefix</th>
          <th scope="col">Permissions</th>
          <th scope="col">Expires</th>
          <th scope="col">Last used</th>
          {canRevoke && <th scope="col">Actions</th>}
        </tr>
      </thead>
      <tbody>
        {tokens.map((token) => {
          const expired = Date.parse(token.expires_at) <= Date.now();
          return (
            <tr key={token.id}>
              <td>{token.name}</td>
              <td>
                <code>{token.prefix}…</code>
              </td>
              <td>{token.permissions === null ? "all of the user's" : token.permissions.join(', ')}</td>
              <td>{expired ? `expired ${day(token.expires_at)}` : day(token.expires_at)}</td>
              <td>{lastUsed(token.last_used_at)}</td>
              {canRevoke && (
                <td>
                  <button type="button" class="small" onClick={() => onRevoke(token)}>
                    Revoke <span class="sr-only">{token.name}</span>
                  </button>
                </td>
              )}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function RevokeDialog({ token, onRevoke, onClose }: { token: ApiToken; onRevoke: () => void; onClose: () => void }) {
  return (
    <Dialog title={`Revoke the token ${token.name}?`} onClose={onClose}>
      <p>Scripts using it stop working at once. This cannot be undone.</p>
      <div class="buttons">
        <button type="button" class="primary" onClick={onRevoke}>
          Revoke
        </button>
        <button type="button" onClick={onClose} autoFocus>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}

/** The secret of a token just created: shown this once, with a copy button. */
function NewToken({ created, onDone }: { created: CreatedToken; onDone: () => void }) {
  const [copied, setCopied] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.token);
      setCopied('Copied to the clipboard.');
    } catch {
      // No clipboard access (an insecure origin, a refused permission): select the text for the person to copy.
      const range = document.createRange();
      const code = document.getElementById('new-token-value');
      if (code) {
        range.selectNodeContents(code);
        getSelection()?.removeAllRanges();
        getSelection()?.addRange(range);
      }
      setCopied('The browser did not allow copying: the token is selected, copy it with Ctrl+C.');
    }
  };
  return (
    <div class="card" role="region" aria-labelledby="new-token-title" data-testid="new-token">
      <h2 id="new-token-title">Your new token “{created.name}”</h2>
      <p>
        <strong>Copy it now: you will not see it again.</strong> FieldLens keeps only a hash of it.
      </p>
      <p>
        <code id="new-token-value" class="token-secret" data-testid="new-token-value">
          {created.token}
        </code>
      </p>
      <div class="buttons">
        <button type="button" class="primary" onClick={() => void copy()}>
          Copy token
        </button>
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
      <p role="status" aria-live="polite">
        {copied}
      </p>
    </div>
  );
}

function CreateTokenForm({
  permissions,
  onCreated,
  onError,
}: {
  permissions: Permission[];
  onCreated: (token: CreatedToken) => void;
  onError: (error: unknown) => void;
}) {
  const [name, setName] = useState('');
  const [days, setDays] = useState('90');
  const [scoped, setScoped] = useState(false);
  const [chosen, setChosen] = useState(new Set<Permission>());
  const submit = async (e: Event) => {
    e.preventDefault();
    onError(null);
    try {
      const body = {
        name: name.trim(),
        expires_in_days: Number(days),
        ...(scoped ? { permissions: permissions.filter((p) => chosen.has(p)) } : {}),
      };
      const token = await ok(api.POST('/api/v1/tokens', { body }));
      setName('');
      setChosen(new Set());
      onCreated(token);
    } catch (error) {
      onError(error);
    }
  };
  return (
    <form class="card" onSubmit={(e) => void submit(e)} aria-labelledby="token-new">
      <h2 id="token-new">New token</h2>
      <label for="token-name">Name</label>
      <input
        id="token-name"
        required
        maxLength={100}
        autocomplete="off"
        value={name}
        onInput={(e) => setName((e.target as HTMLInputElement).value)}
      />
      <label for="token-days">Expires in (days, 1–365)</label>
      <input
        id="token-days"
        type="number"
        required
        min={1}
        max={365}
        step={1}
        value={days}
        onInput={(e) => setDays((e.target as HTMLInputElement).value)}
      />
      <fieldset>
        <legend>Permissions</legend>
        <label class="inline">
          <input type="radio" name="token-scope" checked={!scoped} onChange={() => setScoped(false)} /> All my
          permissions (they follow my roles)
        </label>
        <label class="inline">
          <input type="radio" name="token-scope" checked={scoped} onChange={() => setScoped(true)} /> Only these:
        </label>
        {permissions.map((p) => (
          <label key={p} class="inline">
            <input
              type="checkbox"
              disabled={!scoped}
              checked={chosen.has(p)}
              onChange={() => {
                const next = new Set(chosen);
                if (next.has(p)) next.delete(p);
                else next.add(p);
                setChosen(next);
              }}
            />{' '}
            {p}
          </label>
        ))}
      </fieldset>
      <div class="buttons">
        <button type="submit" class="primary" disabled={!name.trim() || (scoped && chosen.size === 0)}>
          Create token
        </button>
      </div>
    </form>
  );
}
