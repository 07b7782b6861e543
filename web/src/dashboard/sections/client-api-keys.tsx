import { useState } from 'react';
import { useApiKeys, useIssueApiKey, useRevokeApiKey, type ApiKeyRow } from '../../api/client-api-keys.ts';
import type { ClientRow } from '../../api/lists.ts';
import { CopyButton } from '../../components/copy-button.tsx';
import { formFailure, FormError } from '../../components/form-field.tsx';
import { DASHBOARD_TOAST, notify } from '../../lib/toasts.tsx';
import { formatDateTime } from '../../lib/format.ts';

/** The dashboard's date format (docs/behaviour.md#tables-filters-and-dates), with the time: yyyy-MM-dd HH:mm:ss. */
const when = (iso: string | null) => (iso === null ? '' : formatDateTime(iso));

/**
 * The API keys of one client (administrators): a key for the public API's
 * dry run (POST /api/mempool/tests), shown once when issued (the server
 * keeps only its hash), and revoked here.
 */
export function ClientApiKeys({ row }: { row: ClientRow }) {
  const keys = useApiKeys(row.id);
  const issue = useIssueApiKey(row.id);
  const revoke = useRevokeApiKey(row.id);
  const [secret, setSecret] = useState<string | null>(null);

  return (
    <div className="modal-form api-keys">
      <p>
        A key lets {row.name} call the dry run of the public API (<code>POST /api/mempool/tests</code>) with <code>Authorization: Bearer &lt;key&gt;</code>.
      </p>
      {secret !== null && (
        <div className="api-key-secret" role="status">
          <p>
            <strong>Copy this key now: it is not shown again.</strong>
          </p>
          <code className="api-key-value" data-testid="api-key-secret">
            {secret}
          </code>
          <CopyButton text={secret} label="Copy API key" copiedMessage="API key copied!" />
        </div>
      )}
      <FormError message={formFailure(issue.error ?? revoke.error ?? keys.error)} />
      <button
        type="button"
        className="button primary"
        disabled={issue.isPending}
        onClick={() => {
          // The form shows the last action's error: an older one from revoking is not left standing.
          revoke.reset();
          issue.mutate(undefined, {
            onSuccess: (answer) => {
              setSecret(answer.secret);
              notify.success('API key issued!', DASHBOARD_TOAST);
            },
          });
        }}
      >
        {issue.isPending ? 'Issuing...' : 'Issue API key'}
      </button>
      <ul className="api-key-list" aria-label={`API keys of ${row.name}`}>
        {(keys.data ?? []).map((key) => (
          <ApiKeyItem key={key.id} apiKey={key} pending={revoke.isPending} onRevoke={() => {
              issue.reset();
              revoke.mutate(key.id, { onSuccess: () => notify.success('API key revoked!', DASHBOARD_TOAST) });
            }} />
        ))}
        {keys.data?.length === 0 && <li>No API keys yet.</li>}
      </ul>
    </div>
  );
}

function ApiKeyItem({ apiKey, pending, onRevoke }: { apiKey: ApiKeyRow; pending: boolean; onRevoke: () => void }) {
  const revoked = apiKey.revoked_at !== null;
  return (
    <li className="api-key-item">
      <code>{apiKey.key_prefix}…</code>
      <span className="api-key-meta">
        issued {when(apiKey.created_at)} by {apiKey.created_by}
        {apiKey.last_used_at !== null && `, last used ${when(apiKey.last_used_at)}`}
        {revoked && `, revoked ${when(apiKey.revoked_at)} by ${apiKey.revoked_by ?? ''}`}
      </span>
      {!revoked && (
        <button type="button" className="button small danger" disabled={pending} aria-label={`Revoke API key ${apiKey.key_prefix}`} onClick={onRevoke}>
          Revoke
        </button>
      )}
    </li>
  );
}
