/** The license: tier, status, expiry, quota usage, features; a superadmin imports a .service-license file. */
import { useEffect, useState } from 'preact/hooks';
import { api, ok, type LicenseStatus } from '../api/client';
import { ProblemError, problemOf, session } from '../api/session';
import { CheckIcon, CrossIcon } from '../components/icons';
import { UsageBar } from '../components/Minibars';
import { NoPermission, ProblemNotice } from '../components/ProblemNotice';
import { StatusLine } from '../components/Status';

export function LicensePage() {
  const [license, setLicense] = useState<LicenseStatus | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [status, setStatus] = useState('');
  const [file, setFile] = useState<File | null>(null);

  const load = () => ok(api.GET('/api/v1/license/status')).then(setLicense, setError);
  useEffect(() => {
    if (session.can('license:read')) void load();
  }, []);

  if (!session.can('license:read')) return <NoPermission permission="license:read" what="The license page" />;

  const upload = async (e: Event) => {
    e.preventDefault();
    if (!file) return;
    setError(null);
    try {
      const form = new FormData();
      form.append('file', file, file.name);
      const response = await session.fetch(new Request('/api/v1/license/import', { method: 'POST', body: form }));
      if (!response.ok) throw new ProblemError(await problemOf(response));
      const result = (await response.json()) as { sku_tier: string; expires_at: string | null };
      setStatus(
        `Imported: tier ${result.sku_tier}, ${result.expires_at ? `expires ${new Date(result.expires_at).toLocaleDateString()}` : 'perpetual'}.`,
      );
      await load();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <section aria-labelledby="license-title">
      <h1 id="license-title">License</h1>
      <StatusLine message={status} />
      <ProblemNotice error={error} />
      {license && (
        <>
          <dl class="facts" data-testid="license">
            <dt>Tier</dt>
            <dd data-testid="tier">{license.sku_tier}</dd>
            <dt>Customer</dt>
            <dd>{license.customer_name ?? 'Built-in trial'}</dd>
            <dt>Status</dt>
            <dd>
              <span class={`review ${license.computed_status === 'active' ? 'review-confirmed' : 'review-deferred'}`}>
                {license.computed_status}
              </span>
              {license.license_status !== license.computed_status && (
                <span class="muted"> (license says {license.license_status})</span>
              )}
            </dd>
            <dt>Expires</dt>
            <dd>
              {license.expires_at ? new Date(license.expires_at).toLocaleString() : 'Never'}
              {license.days_remaining !== null && ` · ${license.days_remaining} days left`}
            </dd>
          </dl>
          <h2>Quotas</h2>
          <UsageBar label="Data sources" value={license.usage.datasources} max={license.quotas.max_datasources} />
          <UsageBar label="Users" value={license.usage.users} max={license.quotas.max_users} />
          <h2>Features</h2>
          <ul class="features">
            {Object.entries(license.features_enabled).map(([k, v]) => (
              <li key={k}>
                {v ? <CheckIcon class="on" /> : <CrossIcon class="off" />} {k.replace(/_/g, ' ')}: {v ? 'on' : 'off'}
              </li>
            ))}
          </ul>
        </>
      )}
      {session.can('license:write') && (
        <form class="card" onSubmit={(e) => void upload(e)} aria-labelledby="license-import">
          <h2 id="license-import">Import a license</h2>
          <label for="license-file">License file (.service-license)</label>
          <input
            id="license-file"
            type="file"
            accept=".service-license"
            onChange={(e) => setFile((e.target as HTMLInputElement).files?.[0] ?? null)}
          />
          <div class="buttons">
            <button type="submit" class="primary" disabled={!file}>
              Import
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
