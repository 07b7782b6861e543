/**
 * The relay policies a transaction is judged under, each named for the nodes
 * that run it. Numbers are the defaults in each release's policy source
 * (policy/policy.h, policy/feerate.h), quoted where each rule uses them.
 */

export type PolicyFamily = 'core' | 'core-29' | 'knots';
export const POLICY_FAMILIES: readonly PolicyFamily[] = ['core', 'core-29', 'knots'];

/** What the rules module checks for a family it implements (standard-rules.ts). */
export interface RuleParameters {
  family: Exclude<PolicyFamily, 'knots'>;
  /**
   * OP_RETURN outputs: Core 30 gives all of a transaction's together a budget
   * of -datacarriersize bytes of scriptPubKey (MAX_OP_RETURN_RELAY 100,000);
   * Core 29 allows one, of at most 83 bytes.
   */
  datacarrier: { kind: 'total'; bytes: number } | { kind: 'one-output'; bytes: number };
  /** -permitbaremultisig (DEFAULT_PERMIT_BAREMULTISIG true in both). */
  permitBareMultisig: boolean;
  /** -dustrelayfee, sat/kvB (DUST_RELAY_TX_FEE 3,000 in both). */
  dustRelayFeePerKvB: number;
  /** -minrelaytxfee, sat/kvB: DEFAULT_MIN_RELAY_TX_FEE went from 1,000 to 100 in Core 30 and 29.1 (and Knots 29.5 with -corepolicy: its getnetworkinfo.relayfee). */
  minRelayFeePerKvB: number;
  /** Core 30's MAX_TX_LEGACY_SIGOPS (BIP54's limit, release note 32521); none before. */
  maxLegacySigops: number | undefined;
}

export const CORE: RuleParameters = {
  family: 'core',
  datacarrier: { kind: 'total', bytes: 100_000 },
  permitBareMultisig: true,
  dustRelayFeePerKvB: 3_000,
  minRelayFeePerKvB: 100,
  maxLegacySigops: 2_500,
};

export const CORE_29: RuleParameters = {
  family: 'core-29',
  datacarrier: { kind: 'one-output', bytes: 83 },
  permitBareMultisig: true,
  dustRelayFeePerKvB: 3_000,
  // 29.1's, the release nodes of that line run now; 29.0 asked 1,000.
  minRelayFeePerKvB: 100,
  maxLegacySigops: undefined,
};
