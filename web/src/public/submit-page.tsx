import { Link, useSearchParams } from 'react-router';
import { useInfo } from '../api/getinfo.ts';
import { FaqList } from './faq-list.tsx';
import { SubmitPanel } from './submit-panel.tsx';
import { TermsOfUse } from './terms-of-use.tsx';

/** docs/behaviour.md#submit-page: the submit page's three tabs, in the address so a link can open FAQ or TERMS. */
const TABS = [
  { id: 'submit', label: 'SUBMIT TX/PACKAGE' },
  { id: 'faq', label: 'FAQ' },
  { id: 'terms', label: 'TERMS' },
] as const;

export function SubmitPage({ contactEmail }: { contactEmail?: string }) {
  const [params, setParams] = useSearchParams();
  const tab = TABS.find((t) => t.id === params.get('tab')) ?? TABS[0];
  const info = useInfo();

  const select = (id: (typeof TABS)[number]['id']) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (id === 'submit') next.delete('tab');
        else next.set('tab', id);
        return next;
      },
      { replace: true },
    );

  return (
    <main className="landing">
      <h1 className="banner">{info.data ? `${info.data.network} ` : ''}Direct Transaction Submission Portal.</h1>
      <div className="tabs" role="tablist" aria-label="Submit page">
        {TABS.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            data-label={t.label}
            id={`tab-${t.id}`}
            aria-selected={t.id === tab.id}
            aria-controls={`panel-${t.id}`}
            tabIndex={t.id === tab.id ? 0 : -1}
            onClick={() => select(t.id)}
            onKeyDown={(e) => {
              // WAI-ARIA tabs pattern: arrow keys move between tabs.
              const at = TABS.findIndex((x) => x.id === tab.id);
              const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
              if (step === 0) return;
              const next = TABS[(at + step + TABS.length) % TABS.length]!;
              select(next.id);
              document.getElementById(`tab-${next.id}`)?.focus();
            }}
          >
            {t.label}
          </button>
        ))}
      </div>
      {/* All three stay mounted: a pasted transaction and its result survive a look at the FAQ. */}
      {TABS.map((t) => (
        <div key={t.id} role="tabpanel" id={`panel-${t.id}`} aria-labelledby={`tab-${t.id}`} className="tab-panel" hidden={t.id !== tab.id}>
          {t.id === 'submit' && (
            <>
              <SubmitPanel />
              <p className="batch-link">
                <Link to="/batch">Submit many transactions or files</Link>
              </p>
            </>
          )}
          {t.id === 'faq' && <FaqList headingLevel={2} />}
          {t.id === 'terms' && <TermsOfUse {...(contactEmail ? { contactEmail } : {})} />}
        </div>
      ))}
    </main>
  );
}
