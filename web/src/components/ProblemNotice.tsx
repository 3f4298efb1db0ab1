/** Explains a failed call in words: what happened and what the user can do, not just a status code. */
import { ProblemError } from '../api/session';

const EXPLAIN: Record<string, string> = {
  forbidden: 'Your role does not allow this. An administrator can grant a role that does.',
  feature_disabled:
    'The installed license does not include this feature. A superadmin can import a license that does (License page).',
  quota_exceeded: 'The license quota is used up. Remove unused items or import a license with a larger quota.',
  license_inactive:
    'The license is not active (expired, suspended or not yet valid), so new data sources and users cannot be created. Existing data stays readable and reviewable.',
  not_found: 'It no longer exists, or the link is wrong.',
  conflict: 'It conflicts with something that already exists (or, for a scan: one is already running).',
  connection_failed: "The service could not connect to the data source's database.",
  validation_failed: 'Some input is not valid.',
  unprocessable: 'The request names something that does not exist or does not fit.',
  license_invalid: 'The license file was refused.',
  rate_limited: 'Too many attempts; wait a moment and try again.',
  unavailable: 'The service cannot reach its database right now; try again shortly.',
  invalid_credentials: 'Wrong username or password.',
};

export function explain(error: unknown): { summary: string; detail: string | undefined; code: string | undefined } {
  if (error instanceof ProblemError) {
    const code = error.code;
    const summary = (code && EXPLAIN[code]) ?? error.problem.title ?? 'The request failed.';
    const fieldErrors = error.problem.errors?.map((e) => `${e.path}: ${e.message}`).join('; ');
    const detail = [error.problem.detail, fieldErrors].filter(Boolean).join(' — ') || undefined;
    return { summary, detail, code };
  }
  return {
    summary: 'The service could not be reached.',
    detail: error instanceof Error ? error.message : undefined,
    code: undefined,
  };
}

export function ProblemNotice({ error }: { error: unknown }) {
  if (!error) return null;
  const { summary, detail, code } = explain(error);
  return (
    <div class="notice error" role="alert" data-code={code}>
      <strong>{summary}</strong>
      {detail && <span class="detail"> {detail}</span>}
    </div>
  );
}

/** A short note shown in place of a page or a section the user's role does not reach. */
export function NoPermission({ permission, what }: { permission: string; what: string }) {
  return (
    <div class="notice info" role="note" data-code="forbidden">
      {what} needs the permission <code>{permission}</code>, which your roles do not grant. An administrator can give
      you a role that has it.
    </div>
  );
}
