import { DataTable } from '../../components/data-table/data-table.tsx';
import { useListState } from '../../components/data-table/use-list-state.ts';
import type { Section } from '../dashboard-sections.ts';
import { AuditSection } from './audit-section.tsx';
import { ClientsSection } from './clients-section.tsx';
import { DiscountsSection } from './discounts-section.tsx';
import { FailedTxsSection } from './failed-txs-section.tsx';
import { FRAME_COLUMNS } from './section-frames.ts';
import { SettingsSection } from './settings-section.tsx';
import { TxPullerSection } from './tx-puller-section.tsx';
import { TxReportsSection } from './tx-reports-section.tsx';

export function SectionView({ section, isAdmin }: { section: Section; isAdmin: boolean }) {
  if (section.id === 'mempool') return <MempoolSection />;
  if (section.id === 'audit') return <AuditSection isAdmin={isAdmin} />;
  if (section.id === 'discounts') return <DiscountsSection isAdmin={isAdmin} />;
  if (section.id === 'clientmanagement') return <ClientsSection isAdmin={isAdmin} />;
  if (section.id === 'settings') return <SettingsSection isAdmin={isAdmin} />;
  if (section.id === 'txPuller') return <TxPullerSection isAdmin={isAdmin} />;
  if (section.id === 'reports') return <TxReportsSection isAdmin={isAdmin} />;
  if (section.id === 'failedtx') return <FailedTxsSection isAdmin={isAdmin} />;
  return <FrameSection section={section} isAdmin={isAdmin} />;
}

/** SPEC.md section 2: a full-height frame of the backend's /mempool/ dashboard. */
function MempoolSection() {
  return (
    <section className="section mempool-section" aria-labelledby="section-title">
      <h1 id="section-title">Mempool</h1>
      <iframe title="Mempool" src="/mempool/" className="mempool-frame" />
    </section>
  );
}

const NO_FILTERS: readonly never[] = [];

/** A section whose screen comes later: its title and an empty table frame. */
function FrameSection({ section, isAdmin }: { section: Section; isAdmin: boolean }) {
  const list = useListState(NO_FILTERS);
  const columns = (FRAME_COLUMNS[section.id] ?? []).map((c) => ({ ...c, cell: () => null }));
  return (
    <section className="section" aria-labelledby="section-title">
      <h1 id="section-title">{section.title}</h1>
      <DataTable<never>
        label={section.title}
        columns={columns}
        rows={[]}
        rowKey={() => ''}
        loading={false}
        total={0}
        page={list.page}
        limit={list.limit}
        isAdmin={isAdmin}
        onPageChange={list.setPage}
        onLimitChange={list.setLimit}
      />
    </section>
  );
}
