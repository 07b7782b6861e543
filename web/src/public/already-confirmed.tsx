import { Link } from 'react-router';
import { explorerBlockUrl } from './explorer.ts';

export interface Confirmed {
  txid: string;
  block_height: number;
  block_hash: string;
}

/**
 * A transaction pasted again after it was mined: "already confirmed in block
 * N", with the block linked where the app can show it: the network's block
 * explorer, and the status page, which shows any mined transaction's block.
 */
export function AlreadyConfirmed({ confirmed, message, network }: { confirmed: Confirmed; message: string; network: string | undefined }) {
  const explorer = explorerBlockUrl(network, confirmed.block_hash);
  return (
    <span className="already-confirmed">
      {message}{' '}
      {explorer && (
        <>
          <a href={explorer} target="_blank" rel="noreferrer">
            Block {confirmed.block_height}
          </a>{' '}
          ·{' '}
        </>
      )}
      <Link to={`/status?txid=${confirmed.txid}`}>View its status</Link>
    </span>
  );
}
