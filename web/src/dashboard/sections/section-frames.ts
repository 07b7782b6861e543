import type { SectionId } from '../dashboard-sections.ts';

/**
 * The columns SPEC.md section 2 gives each table, for the sections whose
 * screens come with the operations work: until then they show their title and
 * an empty table frame. `adminOnly` columns are hidden from staff who view only.
 */
export const FRAME_COLUMNS: Partial<Record<SectionId, ReadonlyArray<{ header: string; adminOnly?: boolean }>>> = {
  txPuller: [
    { header: 'Sno' }, { header: 'Client Code' }, { header: 'Timestamp' }, { header: 'Tx ID' }, { header: 'Tx Hex' },
    { header: 'TX SIZE' }, { header: 'FeeRate' }, { header: 'Total Fee' }, { header: 'Slipstream Multiple' },
  ],
  failedtx: [
    { header: 'Select' }, { header: 'Sno' }, { header: 'Transaction ID' }, { header: 'Transaction Hex' }, { header: 'Client code' },
    { header: 'Timestamp' }, { header: 'Reason' }, { header: 'Retry Tx', adminOnly: true },
  ],
  reports: [
    { header: 'S.No' }, { header: 'Timestamp' }, { header: 'Payment Tx(s)' }, { header: 'Client code' }, { header: 'Tx Size (vBytes)' },
    { header: 'AVG FEERATE (SAT/VBYTE)' }, { header: 'Slipstream Multiple' }, { header: 'Revenue (sats)' }, { header: 'Premium (Sats)' },
  ],
};
