import { standardText, type StandardVerdict } from './standard-verdict.ts';

/**
 * One row of the parse summary: whether ordinary nodes would relay the
 * transaction. Information only: a non-standard one can still be submitted
 * to the pool, whose node may take it; the decision stays the user's.
 */
export function StandardVerdictRow({ standard }: { standard: StandardVerdict | undefined }) {
  if (!standard) return null;
  const className = standard.verdict === 'non-standard' ? 'field-error' : standard.verdict === 'standard' ? 'ok' : undefined;
  // A sentence, not a figure: it takes the summary's whole width.
  return (
    <div style={{ gridColumn: '1 / -1' }}>
      <dt>Public network</dt>
      <dd className={className}>
        {standardText(standard)}
        {standard.verdict === 'non-standard' && <> — the pool can still mine it: submitting is your decision.</>}
      </dd>
    </div>
  );
}
