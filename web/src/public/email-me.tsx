import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/http.ts';
import { useSiteInfo } from '../api/site-info.ts';
import { formFailure } from '../components/form-field.tsx';

/**
 * "Email me when it is mined": shown only when the portal sends email
 * (site-info's email_notifications) and the transaction is still waiting.
 * One email at its final event; the portal then deletes the address.
 */
export function EmailMe({ txid }: { txid: string }) {
  const site = useSiteInfo();
  const [email, setEmail] = useState('');
  const ask = useMutation({
    mutationFn: (address: string) => unwrap(api.POST('/rest-api/notify-email', { body: { txid, notify_email: address } })),
  });
  if (!site.data?.email_notifications) return null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    ask.mutate(email.trim());
  };
  if (ask.isSuccess) {
    return (
      <p className="email-me" role="status">
        {ask.data.message}
      </p>
    );
  }
  return (
    <form className="email-me" onSubmit={submit} noValidate>
      <label htmlFor="email-me-address">Email me when it is mined</label>
      <div className="email-me-row">
        <input id="email-me-address" type="email" autoComplete="email" maxLength={254} value={email} placeholder="you@example.com" onChange={(e) => setEmail(e.target.value)} />
        <button type="submit" className="button" disabled={ask.isPending || email.trim() === ''}>
          {ask.isPending ? 'Saving...' : 'Notify me'}
        </button>
      </div>
      <p className="email-me-note">One email, then your address is deleted.</p>
      {ask.isError && (
        <p className="form-error" role="alert">
          {formFailure(ask.error)}
        </p>
      )}
    </form>
  );
}
