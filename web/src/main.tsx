/** The console's shell: session start, navigation by permission, pages by path, the sign-in dialog on session expiry. */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { session } from './api/session';
import { Dialog } from './components/Dialog';
import { resetData } from './data';
import { AuditPage } from './pages/Audit';
import { DatasourceDetailPage } from './pages/DatasourceDetail';
import { DatasourcesPage } from './pages/Datasources';
import { FieldDetailPage } from './pages/FieldDetail';
import { InventoryPage } from './pages/Inventory';
import { LicensePage } from './pages/License';
import { OverviewPage } from './pages/Overview';
import { QueuePage } from './pages/queue/QueuePage';
import { RulesPage } from './pages/Rules';
import { SignInAgain, SignInPage } from './pages/SignIn';
import { TaxonomyPage } from './pages/Taxonomy';
import { TokensPage } from './pages/Tokens';
import { UsersPage } from './pages/Users';
import { WebhooksPage } from './pages/Webhooks';
import { navigate, onLinkClick, useLocation } from './router';
import './styles.css';

const NAV: Array<{ href: string; label: string; permission: string }> = [
  { href: '/queue', label: 'Review queue', permission: 'field:read' },
  { href: '/overview', label: 'Overview', permission: 'field:read' },
  { href: '/inventory', label: 'Inventory', permission: 'field:read' },
  { href: '/rules', label: 'Rules', permission: 'field:read' },
  { href: '/taxonomy', label: 'Taxonomy', permission: 'field:read' },
  { href: '/datasources', label: 'Data sources', permission: 'datasource:read' },
  { href: '/audit', label: 'Audit log', permission: 'audit:read' },
  { href: '/license', label: 'License', permission: 'license:read' },
  { href: '/users', label: 'Users', permission: 'user:read' },
  { href: '/tokens', label: 'API tokens', permission: '' },
  { href: '/webhooks', label: 'Webhooks', permission: 'webhook:write' },
];

function Page({ path }: { path: string }) {
  const field = /^\/fields\/([0-9a-f-]{36})$/i.exec(path);
  if (field?.[1]) return <FieldDetailPage id={field[1]} />;
  const datasource = /^\/datasources\/([0-9a-f-]{36})$/i.exec(path);
  if (datasource?.[1]) return <DatasourceDetailPage id={datasource[1]} />;
  switch (path) {
    case '/queue':
      return <QueuePage />;
    case '/overview':
      return <OverviewPage />;
    case '/inventory':
      return <InventoryPage />;
    case '/rules':
      return <RulesPage />;
    case '/taxonomy':
      return <TaxonomyPage />;
    case '/datasources':
      return <DatasourcesPage />;
    case '/audit':
      return <AuditPage />;
    case '/license':
      return <LicensePage />;
    case '/users':
      return <UsersPage />;
    case '/tokens':
      return <TokensPage />;
    case '/webhooks':
      return <WebhooksPage />;
    default:
      return (
        <section>
          <h1>Not found</h1>
          <p>
            There is no page here. <a href="/queue">Go to the review queue</a>.
          </p>
        </section>
      );
  }
}

function App() {
  const [, setTick] = useState(0);
  const [starting, setStarting] = useState(true);
  const { path } = useLocation();

  useEffect(() => {
    const off = session.subscribe(() => setTick((t) => t + 1));
    void session
      .resume()
      .catch(() => false)
      .finally(() => setStarting(false));
    return off;
  }, []);

  useEffect(() => {
    if (path === '/' || path === '/signin') navigate('/queue', { replace: true });
  }, [path]);

  useEffect(() => {
    const label =
      NAV.find((n) => n.href === path)?.label ??
      (path.startsWith('/fields/') ? 'Field' : path.startsWith('/datasources/') ? 'Data source' : 'FieldLens');
    document.title = `${label} · FieldLens`;
  }, [path]);

  if (starting) return <p aria-busy="true">Loading…</p>;
  if (!session.me) return <SignInPage />;
  const me = session.me;
  return (
    <div onClick={onLinkClick}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">FieldLens</span>
        <nav aria-label="Main">
          <ul>
            {NAV.filter((n) => n.permission === '' || session.can(n.permission)).map((n) => (
              <li key={n.href}>
                <a
                  href={n.href}
                  aria-current={
                    path === n.href ||
                    (n.href === '/queue' && path.startsWith('/fields/')) ||
                    (n.href === '/datasources' && path.startsWith('/datasources/'))
                      ? 'page'
                      : undefined
                  }
                >
                  {n.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="who" data-testid="who">
          {me.username} · {me.roles.map((r) => r.role).join(', ')} · {me.sku_tier}
        </span>
        <button
          type="button"
          onClick={() => {
            resetData();
            void session.logout();
          }}
        >
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Page path={path} />
      </main>
      {session.expired && (
        <Dialog title="Your session has ended" onClose={() => undefined}>
          <p>Sign in again to carry on; this page and what you were doing stay as they are.</p>
          <SignInAgain username={me.username} />
        </Dialog>
      )}
    </div>
  );
}

const root = document.getElementById('app');
if (root) render(<App />, root);
