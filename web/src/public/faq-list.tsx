import { useId, useState } from 'react';
import { FAQ_ITEMS, type FaqItem } from './faq-items.tsx';

/**
 * The FAQ as an accordion (WAI-ARIA Authoring Practices, "Accordion"): each
 * question is a button in a heading that shows or hides its answer.
 * docs/behaviour.md#faq: each item toggles open or closed on click, independently, so
 * several can be open at once. Native buttons give Tab, Enter and Space.
 */
export function FaqList({
  items = FAQ_ITEMS,
  headingLevel = 3,
}: {
  items?: ReadonlyArray<FaqItem>;
  /** h3 by default (under an h2 such as the maintenance panel's title); pick what fits the page's outline. */
  headingLevel?: 2 | 3 | 4;
}) {
  const Heading = `h${headingLevel}` as const;
  // Two lists on one page (maintenance panel and FAQ tab) must not share ids.
  const prefix = useId();
  const [open, setOpen] = useState<ReadonlySet<string>>(() => new Set());

  function toggle(id: string) {
    setOpen((current) => {
      const next = new Set(current);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  }

  return (
    <div className="faq-list">
      {items.map((item) => {
        const expanded = open.has(item.id);
        const buttonId = `${prefix}-${item.id}-question`;
        const answerId = `${prefix}-${item.id}-answer`;
        return (
          <div key={item.id} className="faq-item">
            <Heading className="faq-question">
              <button type="button" id={buttonId} aria-expanded={expanded} aria-controls={answerId} onClick={() => toggle(item.id)}>
                <span>{item.question}</span>
                <span className="faq-marker" aria-hidden="true" />
              </button>
            </Heading>
            <div id={answerId} className="faq-answer" hidden={!expanded}>
              {item.answer}
            </div>
          </div>
        );
      })}
    </div>
  );
}
