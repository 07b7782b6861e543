import type { TxStatus } from '../../api/status-check.ts';
import { count, feeRate } from '../../lib/format.ts';

type Advice = NonNullable<TxStatus['bump']>;

/**
 * How to lift a transaction that is not competitive, as the server computed
 * it (server/src/modules/status/bump-advice.ts): a child's fee (CPFP) and a
 * replacement's (RBF). The rate to enter is the page's "Rate to beat", the
 * rate to beat for the transaction's size. Numbers with their explanation; the portal builds
 * no transaction.
 */
export function BumpAdvicePanel({ advice }: { advice: Advice }) {
  return (
    <section className="sl-advice" aria-labelledby="sl-advice-title" data-testid="bump-advice">
      <h2 id="sl-advice-title">How to speed it up</h2>
      <p>{advice.explanation}</p>
      <p className="hint">
        Package: {count(advice.package.vsize, ' vB')}, {count(advice.package.fee, ' sats')} ({feeRate(advice.package.rate)}
        {advice.package.ancestors > 0 ? `, with ${advice.package.ancestors} unconfirmed ancestor${advice.package.ancestors === 1 ? '' : 's'}` : ''}); rate to enter the
        next block: <span data-testid="advice-rate-to-beat">{feeRate(advice.rate_to_beat)}</span>, the rate to beat for its size.
      </p>
      <dl className="details sl-advice-figures">
        {advice.cpfp && (
          <div>
            <dt>Child pays for parent (CPFP)</dt>
            <dd>
              <span data-testid="cpfp-fee">{count(advice.cpfp.child_fee, ' sats')}</span> spending <code className="sl-output">{advice.cpfp.output}</code>
              <span className="hint">{advice.cpfp.explanation}</span>
            </dd>
          </div>
        )}
        {advice.rbf && (
          <div>
            <dt>Replace by fee (RBF)</dt>
            <dd>
              <span data-testid="rbf-fee">{count(advice.rbf.fee, ' sats')}</span> ({feeRate(advice.rbf.rate)})
              <span className="hint">{advice.rbf.explanation}</span>
            </dd>
          </div>
        )}
      </dl>
    </section>
  );
}
