/**
 * A 64-character txid in a monospace block that breaks only between its
 * halves and quarters: one line of 64, two of 32 or four of 16 characters,
 * never a line with a few characters left over. The copy is the whole txid
 * (no spaces are inserted); anything else is shown as it is.
 */
export function TxidText({ txid, className }: { txid: string; className?: string }) {
  const classes = className ? `txid-block ${className}` : 'txid-block';
  if (txid.length !== 64) return <code className={classes}>{txid}</code>;
  const quarter = (n: number) => <span className="txid-part">{txid.slice(n * 16, n * 16 + 16)}</span>;
  return (
    <code className={classes}>
      <span className="txid-part">
        {quarter(0)}
        {quarter(1)}
      </span>
      <span className="txid-part">
        {quarter(2)}
        {quarter(3)}
      </span>
    </code>
  );
}
