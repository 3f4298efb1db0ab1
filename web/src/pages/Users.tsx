/** Users (admins): list, create, change roles, disable or enable. */
import { useEffect, useState } from 'preact/hooks';
import { api, ok, type User } from '../api/client';
import { session } from '../api/session';
import { NoPermission, ProblemNotice } from '../components/ProblemNotice';
import { StatusLine } from '../components/Status';

const ROLES = ['superadmin', 'admin', 'dba', 'operator', 'classifier_owner', 'observer'] as const;
type Role = (typeof ROLES)[number];

export function UsersPage() {
  const [users, setUsers] = useState<User[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [status, setStatus] = useState('');
  const canWrite = session.can('user:write');

  const load = () => ok(api.GET('/api/v1/users')).then((r) => setUsers(r.items), setError);
  useEffect(() => {
    if (session.can('user:read')) void load();
  }, []);
  if (!session.can('user:read')) return <NoPermission permission="user:read" what="The user list" />;

  const run = async (what: string, call: () => Promise<unknown>) => {
    setError(null);
    try {
      await call();
      await load();
      setStatus(what);
    } catch (e) {
      setError(e);
    }
  };

  const patch: Patch = (user, body, what) =>
    void run(what, () => ok(api.PATCH('/api/v1/users/{id}', { params: { path: { id: user.id } }, body })));

  return (
    <section aria-labelledby="users-title">
      <h1 id="users-title">Users</h1>
      <StatusLine message={status} />
      <ProblemNotice error={error} />
      {users && (
        <table>
          <thead>
            <tr>
              <th scope="col">User</th>
              <th scope="col">E-mail</th>
              <th scope="col">Roles</th>
              <th scope="col">State</th>
              {canWrite && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {users.map((u) => (
              <UserRow key={u.id} user={u} canWrite={canWrite} patch={patch} />
            ))}
          </tbody>
        </table>
      )}
      {canWrite && <NewUserForm run={run} />}
    </section>
  );
}

type Patch = (user: User, body: { roles?: Role[]; disabled?: boolean }, what: string) => void;

/** A user with, for a writer and anyone but oneself, the role editor and the disable/enable button. */
function UserRow({ user: u, canWrite, patch }: { user: User; canWrite: boolean; patch: Patch }) {
  return (
    <tr>
      <td>{u.username}</td>
      <td>{u.email}</td>
      <td>
        {canWrite && u.id !== session.me?.id ? (
          <RoleEditor user={u} onSave={(roles) => patch(u, { roles }, `Changed the roles of ${u.username}.`)} />
        ) : (
          u.roles.map((r) => r.role).join(', ')
        )}
      </td>
      <td>{u.disabled ? 'disabled' : 'active'}</td>
      {canWrite && (
        <td>
          {u.id !== session.me?.id && (
            <button
              type="button"
              class="small"
              onClick={() =>
                patch(u, { disabled: !u.disabled }, `${u.disabled ? 'Enabled' : 'Disabled'} ${u.username}.`)
              }
            >
              {u.disabled ? 'Enable' : 'Disable'} <span class="sr-only">{u.username}</span>
            </button>
          )}
        </td>
      )}
    </tr>
  );
}

/** The new-user form; `run` creates the user, reports it and reloads the list. */
function NewUserForm({ run }: { run: (what: string, call: () => Promise<unknown>) => Promise<void> }) {
  const [form, setForm] = useState({ username: '', email: '', password: '', roles: new Set<Role>(['observer']) });

  const create = (e: Event) => {
    e.preventDefault();
    void run(`Created user ${form.username}.`, async () => {
      await ok(
        api.POST('/api/v1/users', {
          body: {
            username: form.username.trim(),
            email: form.email.trim(),
            password: form.password,
            roles: [...form.roles],
          },
        }),
      );
      setForm({ username: '', email: '', password: '', roles: new Set(['observer']) });
    });
  };

  return (
    <form class="card" onSubmit={create} aria-labelledby="user-new">
      <h2 id="user-new">New user</h2>
      <label for="user-name">Username</label>
      <input
        id="user-name"
        required
        autocomplete="off"
        value={form.username}
        onInput={(e) => setForm({ ...form, username: (e.target as HTMLInputElement).value })}
      />
      <label for="user-email">E-mail</label>
      <input
        id="user-email"
        type="email"
        required
        value={form.email}
        onInput={(e) => setForm({ ...form, email: (e.target as HTMLInputElement).value })}
      />
      <label for="user-password">Password (12 characters or more)</label>
      <input
        id="user-password"
        type="password"
        required
        minLength={12}
        autocomplete="new-password"
        value={form.password}
        onInput={(e) => setForm({ ...form, password: (e.target as HTMLInputElement).value })}
      />
      <fieldset>
        <legend>Roles</legend>
        {ROLES.map((r) => (
          <label key={r} class="inline">
            <input
              type="checkbox"
              checked={form.roles.has(r)}
              onChange={() => {
                const roles = new Set(form.roles);
                if (roles.has(r)) roles.delete(r);
                else roles.add(r);
                setForm({ ...form, roles });
              }}
            />{' '}
            {r}
          </label>
        ))}
      </fieldset>
      <div class="buttons">
        <button type="submit" class="primary" disabled={form.roles.size === 0}>
          Create user
        </button>
      </div>
    </form>
  );
}

function RoleEditor({ user, onSave }: { user: User; onSave: (roles: Role[]) => void }) {
  const [roles, setRoles] = useState(new Set(user.roles.map((r) => r.role)));
  const changed = roles.size !== user.roles.length || user.roles.some((r) => !roles.has(r.role));
  return (
    <fieldset class="roles">
      <legend class="sr-only">Roles of {user.username}</legend>
      {ROLES.map((r) => (
        <label key={r} class="inline">
          <input
            type="checkbox"
            checked={roles.has(r)}
            onChange={() => {
              const next = new Set(roles);
              if (next.has(r)) next.delete(r);
              else next.add(r);
              setRoles(next);
            }}
          />{' '}
          {r}
        </label>
      ))}
      <button type="button" class="small" disabled={!changed || roles.size === 0} onClick={() => onSave([...roles])}>
        Save <span class="sr-only">roles of {user.username}</span>
      </button>
    </fieldset>
  );
}
