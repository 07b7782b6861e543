/** docs/behaviour.md#banner-and-header: block-explorer links differ by network; regtest has none. */
const EXPLORERS: Record<string, string> = {
  mainnet: 'https://mempool.space',
  testnet: 'https://mempool.space/testnet',
  testnet4: 'https://mempool.space/testnet4',
};

export function explorerTxUrl(network: string | undefined, txid: string): string | null {
  const base = network ? EXPLORERS[network] : undefined;
  return base ? `${base}/tx/${txid}` : null;
}

export function explorerAddressUrl(network: string | undefined, address: string): string | null {
  const base = network ? EXPLORERS[network] : undefined;
  return base ? `${base}/address/${address}` : null;
}

export function explorerBlockUrl(network: string | undefined, blockHash: string): string | null {
  const base = network ? EXPLORERS[network] : undefined;
  return base ? `${base}/block/${blockHash}` : null;
}
