/**
 * The Slipstream mark and word. The mark is three stream lines running into a
 * block; it is drawn inline so the page needs no image request, and it takes
 * its colours from the text around it (currentColor) plus one accent, so it
 * reads on the light header and on the dark maintenance screen alike.
 *
 * The size follows the font size of the element it sits in (CSS `.brand-logo`).
 * Assistive technology hears one image named "Slipstream": inside a link that
 * makes the link's name "Slipstream" too.
 */
export function Logo({ className }: { className?: string }) {
  return (
    <span className={className ? `brand-logo ${className}` : 'brand-logo'} role="img" aria-label="Slipstream">
      <svg className="brand-logo-mark" viewBox="0 0 40 32" aria-hidden="true" focusable="false">
        {/* The stream: three lines that bend into the block's open side. */}
        <g fill="none" stroke="currentColor" strokeLinecap="round" strokeWidth="2.6">
          <path d="M2 9 C10 9 12 12 21 12" opacity="0.55" />
          <path d="M2 16 H21" />
          <path d="M2 23 C10 23 12 20 21 20" opacity="0.55" />
        </g>
        {/* The block the stream lands in. */}
        <rect className="brand-logo-block" x="22" y="5" width="16" height="22" rx="3" />
        <path d="M27 11 L33 16 L27 21" fill="none" stroke="#ffffff" strokeLinecap="round" strokeLinejoin="round" strokeWidth="2.4" />
      </svg>
      <span className="brand-logo-word" aria-hidden="true">
        Slipstream
      </span>
    </span>
  );
}
