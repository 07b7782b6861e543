import { useState, type FormEvent } from 'react';
import {
  DELIVERIES_PER_PAGE,
  useClientWebhook,
  useRedeliver,
  useRemoveClientWebhook,
  useSetClientWebhook,
  useWebhookDeliveries,
  type WebhookDelivery,
} from '../../api/client-webhooks.ts';
import type { ClientRow } from '../../api/lists.ts';
import { CopyButton } from '../../components/copy-button.tsx';
import { formFailure, FormError } from '../../components/form-field.tsx';
import { DASHBOARD_TOAST, notify } from '../../lib/toasts.tsx';
import { formatDateTime } from '../../lib/format.ts';

/** The dashboard's date format (docs/behaviour.md#tables-filters-and-dates), with the time: yyyy-MM-dd HH:mm:ss. */
const when = (iso: string | null) => (iso === null ? '' : formatDateTime(iso));

/**
 * One client's webhook (administrators): the URL that receives the events
 * of every submission made with the client's codes, its signing secret
 * (shown once, when new or rotated), and the log of what was sent, with
 * "Send again" for an event the receiver lost.
 */
export function ClientWebhook({ row }: { row: ClientRow }) {
  const webhook = useClientWebhook(row.id);
  const save = useSetClientWebhook(row.id);
  const remove = useRemoveClientWebhook(row.id);
  const [url, setUrl] = useState<string | null>(null);
  const [rotate, setRotate] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const current = webhook.data ?? null;
  const shownUrl = url ?? current?.url ?? '';

  const submit = (event: FormEvent) => {
    event.preventDefault();
    // The form shows the last action's error: an older one from the other button is not left standing.
    remove.reset();
    save.mutate(
      { url: shownUrl, ...(rotate ? { rotate_secret: true } : {}) },
      {
        onSuccess: (answer) => {
          setSecret(answer.secret ?? null);
          setRotate(false);
          setUrl(null);
          notify.success('Webhook saved!', DASHBOARD_TOAST);
        },
      },
    );
  };

  return (
    <div className="modal-form webhook-panel">
      <p>
        The portal sends a signed <code>POST</code> to this URL for each event (accepted, mined, replaced, evicted, conflicted) of every transaction submitted
        with one of {row.name}&apos;s client codes.
      </p>
      {secret !== null && (
        <div className="api-key-secret" role="status">
          <p>
            <strong>Copy this signing secret now: it is not shown again.</strong>
          </p>
          <code className="api-key-value" data-testid="webhook-secret">
            {secret}
          </code>
          <CopyButton text={secret} label="Copy signing secret" copiedMessage="Signing secret copied!" />
        </div>
      )}
      <form onSubmit={submit} className="webhook-form" noValidate>
        <label htmlFor="client-webhook-url">Webhook URL</label>
        <input id="client-webhook-url" type="url" inputMode="url" maxLength={2000} required value={shownUrl} placeholder="https://example.com/hooks/slipstream" onChange={(e) => setUrl(e.target.value)} />
        {current !== null && (
          <label className="checkbox-label">
            <input type="checkbox" checked={rotate} onChange={(e) => setRotate(e.target.checked)} /> Make a new signing secret (the old one stops working)
          </label>
        )}
        <FormError message={formFailure(save.error ?? remove.error ?? webhook.error)} />
        <div className="row-actions">
          <button type="submit" className="button primary" disabled={save.isPending || shownUrl.trim() === ''}>
            {save.isPending ? 'Saving...' : 'Save webhook'}
          </button>
          {current !== null && (
            <button
              type="button"
              className="button danger"
              disabled={remove.isPending}
              onClick={() => {
                save.reset();
                remove.mutate(undefined, {
                  onSuccess: () => {
                    setUrl(null);
                    // The secret belonged to the webhook just removed: it signs nothing now.
                    setSecret(null);
                    setRotate(false);
                    notify.success('Webhook removed!', DASHBOARD_TOAST);
                  },
                });
              }}
            >
              Remove webhook
            </button>
          )}
        </div>
      </form>
      {current !== null && <p className="webhook-meta">Set {when(current.created_at)}, last changed {when(current.updated_at)}.</p>}
      <Deliveries clientId={row.id} name={row.name} />
    </div>
  );
}

function Deliveries({ clientId, name }: { clientId: number; name: string }) {
  const [page, setPage] = useState(1);
  const deliveries = useWebhookDeliveries(clientId, page);
  const redeliver = useRedeliver(clientId);
  const total = deliveries.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / DELIVERIES_PER_PAGE));
  if (deliveries.isError) return <FormError message={formFailure(deliveries.error)} />;
  if (total === 0) return <p>No events sent yet.</p>;
  return (
    <div className="webhook-deliveries">
      <h3>Events sent</h3>
      <ul className="delivery-list" aria-label={`Webhook events of ${name}`}>
        {(deliveries.data?.result ?? []).map((d) => (
          <DeliveryItem key={d.id} delivery={d} pending={redeliver.isPending} onRedeliver={() => redeliver.mutate(d.id, { onSuccess: () => notify.success('The event will be sent again.', DASHBOARD_TOAST) })} />
        ))}
      </ul>
      {pages > 1 && (
        <div className="row-actions" aria-label="Pages of events">
          <button type="button" className="button small" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <span>
            Page {page} of {pages}
          </span>
          <button type="button" className="button small" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </div>
      )}
    </div>
  );
}

const STATE_LABEL = { pending: 'Waiting', delivered: 'Delivered', failed: 'Gave up' } as const;

function DeliveryItem({ delivery, pending, onRedeliver }: { delivery: WebhookDelivery; pending: boolean; onRedeliver: () => void }) {
  const outcome = delivery.last_error ?? (delivery.last_status === null ? '' : `HTTP ${delivery.last_status}`);
  return (
    <li className="delivery-item">
      <span className="delivery-what">
        <strong>{delivery.event}</strong> <code className="delivery-txid">{delivery.txid}</code>
      </span>
      <span className="api-key-meta">
        <span className={`delivery-state ${delivery.state}`}>{STATE_LABEL[delivery.state]}</span> {when(delivery.created_at)}, {delivery.attempts}{' '}
        {delivery.attempts === 1 ? 'attempt' : 'attempts'}
        {outcome && `: ${outcome}`}
      </span>
      {delivery.state !== 'pending' && (
        <button type="button" className="button small" disabled={pending} aria-label={`Send the ${delivery.event} event of ${delivery.txid} again`} onClick={onRedeliver}>
          Send again
        </button>
      )}
    </li>
  );
}
