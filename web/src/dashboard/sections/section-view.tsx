import type { Section } from '../dashboard-sections.ts';
import { AuditLogsSection } from './audit-logs-section.tsx';
import { ClientsSection } from './clients-section.tsx';
import { DiscountsSection } from './discounts-section.tsx';
import { FailedTxsSection } from './failed-txs-section.tsx';
import { SettingsSection } from './settings-section.tsx';
import { TxPullerSection } from './tx-puller-section.tsx';
import { TxReportsSection } from './tx-reports-section.tsx';

export function SectionView({ section, isAdmin }: { section: Section; isAdmin: boolean }) {
  switch (section.id) {
    case 'txPuller':
      return <TxPullerSection isAdmin={isAdmin} />;
    case 'mempool':
      return <MempoolSection />;
    case 'clientmanagement':
      return <ClientsSection isAdmin={isAdmin} />;
    case 'discounts':
      return <DiscountsSection isAdmin={isAdmin} />;
    case 'failedtx':
      return <FailedTxsSection isAdmin={isAdmin} />;
    case 'settings':
      return <SettingsSection isAdmin={isAdmin} />;
    case 'reports':
      return <TxReportsSection isAdmin={isAdmin} />;
    case 'audit':
      return <AuditLogsSection isAdmin={isAdmin} />;
  }
}

/** docs/behaviour.md#mempool-view: a full-height frame of the backend's /mempool/ dashboard. */
function MempoolSection() {
  return (
    <section className="section mempool-section" aria-labelledby="section-title">
      <h1 id="section-title">Mempool</h1>
      <iframe title="Mempool" src="/mempool/" className="mempool-frame" />
    </section>
  );
}
