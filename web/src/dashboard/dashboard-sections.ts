/** docs/behaviour.md#dashboard-shell: the dashboard's 8 sections, in menu order; the first is the default. */
export const SECTIONS = [
  { id: 'txPuller', label: 'Tx Puller', title: 'Tx Puller' },
  { id: 'mempool', label: 'Mempool', title: 'Mempool' },
  { id: 'clientmanagement', label: 'Clients', title: 'Client Management' },
  { id: 'discounts', label: 'Discounts', title: 'Discount Management' },
  { id: 'failedtx', label: 'Failed Transactions', title: 'Failed Transaction' },
  { id: 'settings', label: 'Settings', title: 'Settings' },
  { id: 'reports', label: 'Reports', title: 'TX Reports' },
  { id: 'audit', label: 'Logs', title: 'Logs' },
] as const;

export type SectionId = (typeof SECTIONS)[number]['id'];
export type Section = (typeof SECTIONS)[number];

export function sectionFor(id: string | null): Section {
  return SECTIONS.find((s) => s.id === id) ?? SECTIONS[0];
}
