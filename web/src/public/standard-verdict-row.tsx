import { policyLine, standardText, type PolicyVerdict, type StandardVerdict } from './standard-verdict.ts';

/**
 * One row of the parse summary: whether ordinary nodes would relay the
 * transaction. Information only: a non-standard one can still be submitted
 * to the pool, whose node may take it; the decision stays the user's.
 */
export function StandardVerdictRow({ standard, policies }: { standard: StandardVerdict | undefined; policies?: PolicyVerdict[] | undefined }) {
  if (!standard) return null;
  const className = standard.verdict === 'non-standard' ? 'field-error' : standard.verdict === 'standard' ? 'ok' : undefined;
  // A sentence, not a figure: it takes the summary's whole width.
  return (
    <div style={{ gridColumn: '1 / -1' }}>
      <dt>Public network</dt>
      <dd className={className}>
        {standardText(standard)}
        {standard.verdict === 'non-standard' && <> — the pool can still mine it: submitting is your decision.</>}
        {/* The sentence above is Bitcoin Core 30's; nodes with older or stricter policies may decide otherwise. */}
        {policies && policies.length > 0 && (
          <ul className="policy-verdicts" aria-label="By node policy">
            {policies.map((p) => (
              <li key={p.policy} className={p.relays === false ? 'field-error' : p.relays === true ? 'ok' : 'policy-unknown'}>
                {policyLine(p)}
              </li>
            ))}
          </ul>
        )}
      </dd>
    </div>
  );
}
