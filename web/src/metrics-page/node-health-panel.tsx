import { useId } from 'react';
import type { NodeHealth } from '../api/metrics-summary.ts';
import { formatDateTime } from '../lib/format.ts';
import { integer } from './chart-scale.ts';

/** The node as the mempool engine sees it now, and the node RPC failures since this server started. */

export const NODE_HEALTH_TITLE = 'Node health';

const MODES: Record<string, string> = { zmq: 'ZMQ notifications', polling: 'Polling', starting: 'Starting' };

export function lagText(seconds: number): string {
  return seconds < 1 ? `${Math.round(seconds * 1000)} ms` : `${seconds.toFixed(1)} s`;
}

export function NodeHealthPanel({ node }: { node: NodeHealth }) {
  const headingId = useId();
  return (
    <section className="metrics-card" aria-labelledby={headingId} data-testid="node-health">
      <h2 id={headingId}>{NODE_HEALTH_TITLE}</h2>
      <dl className="metrics-health">
        <div>
          <dt>Connection</dt>
          <dd className={node.connected ? 'health-ok' : 'health-bad'}>{node.connected ? 'Connected' : 'Not connected'}</dd>
        </div>
        <div>
          <dt>Following the mempool by</dt>
          <dd>{MODES[node.mode] ?? node.mode}</dd>
        </div>
        <div>
          <dt>Mirror lag</dt>
          <dd>{lagText(node.lag_seconds)}</dd>
        </div>
        <div>
          <dt>Last answer from the node</dt>
          <dd>{node.last_contact_at === null ? 'Never' : formatDateTime(node.last_contact_at)}</dd>
        </div>
        <div>
          <dt>Tip height</dt>
          <dd>{node.tip_height === null ? 'N/A' : integer(node.tip_height)}</dd>
        </div>
        <div>
          <dt>Mempool transactions</dt>
          <dd>{node.mempool_tx_count === null ? 'N/A' : integer(node.mempool_tx_count)}</dd>
        </div>
        <div>
          <dt>Mempool size</dt>
          <dd>{node.mempool_vsize === null ? 'N/A' : `${integer(node.mempool_vsize)} vB`}</dd>
        </div>
        <div>
          <dt>Node RPC errors since start</dt>
          <dd>{integer(node.rpc_errors_total)}</dd>
        </div>
      </dl>
      {node.last_error !== null && (
        <p className="health-bad" role="status">
          Last error: {node.last_error}
        </p>
      )}
      {node.rpc_errors.length > 0 && (
        <div className="table-scroll">
          <table>
            <caption className="metrics-caption">Node RPC errors by method since the server started</caption>
            <thead>
              <tr>
                <th scope="col">Method</th>
                <th scope="col">Kind</th>
                <th scope="col">Count</th>
              </tr>
            </thead>
            <tbody>
              {node.rpc_errors.map((e) => (
                <tr key={`${e.method}/${e.kind}`}>
                  <td>{e.method}</td>
                  <td>{e.kind}</td>
                  <td>{integer(e.count)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
