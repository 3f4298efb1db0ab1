/** Webhooks (admins): list, create (the signing secret shown once, to copy), enable or disable, delete, send a test, and the delivery log. */
import { useEffect, useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api/client';
import { session } from '../api/session';
import { NoPermission, ProblemNotice } from '../components/ProblemNotice';
import { StatusLine } from '../components/Status';

type Webhook = Schemas<'/api/v1/webhooks', 'get'>['items'][number];
type Delivery = Schemas<'/api/v1/webhooks/{id}/deliveries', 'get'>['items'][number];
type EventName = Webhook['events'][number];

const EVENTS: Array<{ name: EventName; label: string }> = [
  { name: 'scan.finished', label: 'A scan finished' },
  { name: 'scan.failed', label: 'A scan failed' },
  { name: 'finding.high_risk', label: 'An unreviewed field became high risk' },
  { name: 'field.confirmed', label: 'A field was confirmed' },
  { name: 'field.level_changed', label: "A confirmation changed a field's level" },
  { name: 'license.expiring', label: 'The license expires in 14, 7 or 1 days' },
];

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

type Run = (what: string, call: () => Promise<unknown>) => Promise<void>;
type Secret = { url: string; secret: string };

const DEFAULT_EVENTS: EventName[] = ['scan.failed', 'finding.high_risk'];

/** The webhooks, and `run`: a change that says what it did (or shows why not) and reads the list again. */
function useWebhooks(allowed: boolean, setStatus: (message: string) => void) {
  const [hooks, setHooks] = useState<Webhook[] | null>(null);
  const [error, setError] = useState<unknown>(null);

  const load = () => ok(api.GET('/api/v1/webhooks')).then((r) => setHooks(r.items), setError);
  useEffect(() => {
    if (allowed) void load();
  }, []);

  const run: Run = async (what, call) => {
    setError(null);
    try {
      await call();
      await load();
      setStatus(what);
    } catch (e) {
      setError(e);
    }
  };
  return { hooks, error, run };
}

export function WebhooksPage() {
  const [status, setStatus] = useState('');
  const [secret, setSecret] = useState<Secret | null>(null);
  const [logOf, setLogOf] = useState<Webhook | null>(null);
  const allowed = session.can('webhook:write');
  const { hooks, error, run } = useWebhooks(allowed, setStatus);
  if (!allowed) return <NoPermission permission="webhook:write" what="Webhooks" />;

  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      <p>
        FieldLens POSTs each event to the webhook's URL, signed with its secret (Standard Webhooks), and retries for up
        to 24 hours. See docs/integrations.md for verifying the signature.
      </p>
      <StatusLine message={status} />
      <ProblemNotice error={error} />
      {secret && <SecretCard secret={secret} onStatus={setStatus} onStored={() => setSecret(null)} />}
      {hooks && hooks.length === 0 && <p>No webhooks yet.</p>}
      {hooks && hooks.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">URL</th>
              <th scope="col">Events</th>
              <th scope="col">Description</th>
              <th scope="col">State</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {hooks.map((h) => (
              <WebhookRow key={h.id} hook={h} run={run} logOf={logOf} setLogOf={setLogOf} />
            ))}
          </tbody>
        </table>
      )}
      {logOf && <DeliveryLog key={logOf.id} webhook={logOf} />}
      <NewWebhookForm run={run} onCreated={setSecret} />
    </section>
  );
}

/** A new webhook's signing secret, shown once to copy. */
function SecretCard({
  secret,
  onStatus,
  onStored,
}: {
  secret: Secret;
  onStatus: (message: string) => void;
  onStored: () => void;
}) {
  return (
    <div class="card" role="region" aria-labelledby="secret-title">
      <h2 id="secret-title">Signing secret</h2>
      <p>
        The secret of <code>{secret.url}</code>. It is shown only now: store it with the receiver.
      </p>
      <label for="webhook-secret">Secret</label>
      <input
        id="webhook-secret"
        readOnly
        size={56}
        value={secret.secret}
        onFocus={(e) => (e.target as HTMLInputElement).select()}
      />
      <div class="buttons">
        <button
          type="button"
          onClick={() => {
            navigator.clipboard.writeText(secret.secret).then(
              () => onStatus('Copied the secret.'),
              () => onStatus('Copying failed: select the secret and copy it by hand.'),
            );
          }}
        >
          Copy secret
        </button>
        <button type="button" onClick={onStored}>
          I have stored it
        </button>
      </div>
    </div>
  );
}

interface WebhookRowProps {
  hook: Webhook;
  run: Run;
  logOf: Webhook | null;
  setLogOf: (webhook: Webhook | null) => void;
}

function WebhookRow({ hook: h, run, logOf, setLogOf }: WebhookRowProps) {
  const toggle = () =>
    void run(`${h.enabled ? 'Disabled' : 'Enabled'} the webhook.`, () =>
      ok(api.PATCH('/api/v1/webhooks/{id}', { params: { path: { id: h.id } }, body: { enabled: !h.enabled } })),
    );
  const sendTest = () =>
    void run('Queued a test event; it appears in the delivery log.', async () => {
      await ok(api.POST('/api/v1/webhooks/{id}/test', { params: { path: { id: h.id } } }));
      setLogOf(h);
    });
  const remove = () => {
    if (!confirm(`Delete the webhook to ${h.url}? Its delivery log goes with it.`)) return;
    void run('Deleted the webhook.', async () => {
      await ok(api.DELETE('/api/v1/webhooks/{id}', { params: { path: { id: h.id } } }));
      if (logOf?.id === h.id) setLogOf(null);
    });
  };
  return (
    <tr>
      <td>
        <code>{h.url}</code>
      </td>
      <td>{h.events.join(', ')}</td>
      <td>{h.description ?? ''}</td>
      <td>{h.enabled ? 'enabled' : 'disabled'}</td>
      <td>
        <button type="button" class="small" onClick={toggle}>
          {h.enabled ? 'Disable' : 'Enable'} <span class="sr-only">{h.url}</span>
        </button>{' '}
        <button type="button" class="small" onClick={sendTest}>
          Send test <span class="sr-only">to {h.url}</span>
        </button>{' '}
        <button type="button" class="small" onClick={() => setLogOf(h)}>
          Deliveries <span class="sr-only">of {h.url}</span>
        </button>{' '}
        <button type="button" class="small" onClick={remove}>
          Delete <span class="sr-only">{h.url}</span>
        </button>
      </td>
    </tr>
  );
}

function NewWebhookForm({ run, onCreated }: { run: Run; onCreated: (secret: Secret) => void }) {
  const [form, setForm] = useState({ url: '', description: '', events: new Set<EventName>(DEFAULT_EVENTS) });

  const create = (e: Event) => {
    e.preventDefault();
    void run('Created the webhook. Copy its signing secret now: it is not shown again.', async () => {
      const created = await ok(
        api.POST('/api/v1/webhooks', {
          body: {
            url: form.url.trim(),
            events: [...form.events],
            description: form.description.trim() === '' ? null : form.description.trim(),
          },
        }),
      );
      onCreated({ url: created.url, secret: created.secret });
      setForm({ url: '', description: '', events: new Set(DEFAULT_EVENTS) });
    });
  };

  return (
    <form class="card" onSubmit={create} aria-labelledby="webhook-new">
      <h2 id="webhook-new">New webhook</h2>
      <label for="webhook-url">URL (https)</label>
      <input
        id="webhook-url"
        type="url"
        required
        size={56}
        placeholder="https://hooks.example.com/fieldlens"
        value={form.url}
        onInput={(e) => setForm({ ...form, url: (e.target as HTMLInputElement).value })}
      />
      <fieldset>
        <legend>Events</legend>
        {EVENTS.map((ev) => (
          <label key={ev.name} class="inline">
            <input
              type="checkbox"
              checked={form.events.has(ev.name)}
              onChange={() => {
                const events = new Set(form.events);
                if (events.has(ev.name)) events.delete(ev.name);
                else events.add(ev.name);
                setForm({ ...form, events });
              }}
            />{' '}
            {ev.label} (<code>{ev.name}</code>)
          </label>
        ))}
      </fieldset>
      <label for="webhook-description">Description (optional)</label>
      <input
        id="webhook-description"
        maxLength={500}
        value={form.description}
        onInput={(e) => setForm({ ...form, description: (e.target as HTMLInputElement).value })}
      />
      <div class="buttons">
        <button type="submit" class="primary" disabled={form.events.size === 0}>
          Create webhook
        </button>
      </div>
    </form>
  );
}

function DeliveryLog({ webhook }: { webhook: Webhook }) {
  const [items, setItems] = useState<Delivery[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const page = (cursor: string | null) =>
    ok(
      api.GET('/api/v1/webhooks/{id}/deliveries', {
        params: { path: { id: webhook.id }, query: cursor ? { limit: 50, cursor } : { limit: 50 } },
      }),
    ).then((r) => {
      setItems((before) => (cursor ? [...before, ...r.items] : r.items));
      setNext(r.next_cursor);
      setError(null);
    }, setError);
  useEffect(() => {
    void page(null);
  }, [webhook.id]);
  return (
    <div role="region" aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">
        Deliveries to <code>{webhook.url}</code>
      </h2>
      <ProblemNotice error={error} />
      <div class="buttons">
        <button type="button" class="small" onClick={() => void page(null)}>
          Refresh deliveries
        </button>
      </div>
      {items.length === 0 ? (
        <p>No deliveries yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last answer</th>
              <th scope="col">Created</th>
              <th scope="col">Delivered / next attempt</th>
            </tr>
          </thead>
          <tbody>
            {items.map((d) => (
              <tr key={d.id}>
                <td>
                  <code>{d.event}</code>
                </td>
                <td>{d.status}</td>
                <td>{d.attempts}</td>
                <td>
                  {d.last_status_code !== null ? `HTTP ${d.last_status_code}` : ''}
                  {d.last_error && d.last_error !== `HTTP ${d.last_status_code}` ? ` ${d.last_error}` : ''}
                </td>
                <td>{when(d.created_at)}</td>
                <td>{d.status === 'pending' ? `next ${when(d.next_attempt_at)}` : when(d.delivered_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {next && (
        <div class="buttons">
          <button type="button" class="small" onClick={() => void page(next)}>
            Older deliveries
          </button>
        </div>
      )}
    </div>
  );
}
