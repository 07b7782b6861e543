import { useCallback, useEffect, useId, useRef, useState, useSyncExternalStore, type KeyboardEvent } from 'react';
import { Logo } from '../components/logo.tsx';
import { FaqList } from './faq-list.tsx';

/** Built by web/scripts/generate-maintenance-video.sh; Vite copies web/public to the site root. */
const VIDEO_URL = '/maintenance-loop.webm';
const REDUCED_MOTION = '(prefers-reduced-motion: reduce)';
const MESSAGE = 'Adding more RAM to mempool, check back later!';

function subscribeReducedMotion(onChange: () => void): () => void {
  const query = window.matchMedia(REDUCED_MOTION);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

function prefersReducedMotion(): boolean {
  return window.matchMedia(REDUCED_MOTION).matches;
}

/**
 * docs/behaviour.md#maintenance-screen: logo, looping background video, a
 * top bar with the custom-blocks contact and a link to the company site, the
 * message, LEARN MORE opening the FAQ panel (Close returns to the message,
 * docs/behaviour.md#maintenance-screen), and a 2025 copyright footer.
 *
 * The video is decoration: hidden from assistive technology, muted, and not
 * loaded at all for visitors who ask for reduced motion. Because it loops for
 * longer than five seconds, the footer offers a pause button (WCAG 2.2.2).
 */
export function MaintenanceScreen({ contactEmail, companyUrl }: { contactEmail: string; companyUrl: string }) {
  const reducedMotion = useSyncExternalStore(subscribeReducedMotion, prefersReducedMotion);
  const videoRef = useRef<HTMLVideoElement>(null);
  const [videoPlaying, setVideoPlaying] = useState(false);
  const attachVideo = useCallback((video: HTMLVideoElement | null) => {
    videoRef.current = video;
    // React sets `muted` only as a property; the attribute is what audits (axe's
    // no-autoplay-audio) and some browsers' autoplay checks look for.
    video?.setAttribute('muted', '');
  }, []);

  const [faqOpen, setFaqOpen] = useState(false);
  const panelHeadingId = useId();
  const panelHeadingRef = useRef<HTMLHeadingElement>(null);
  const learnMoreRef = useRef<HTMLButtonElement>(null);
  // Set by the buttons, so focus moves only after a visitor's own toggle, never on first render.
  const moveFocus = useRef(false);

  useEffect(() => {
    if (!moveFocus.current) return;
    moveFocus.current = false;
    // Opening: start reading at the panel's title. Closing: back to the button that opened it.
    (faqOpen ? panelHeadingRef.current : learnMoreRef.current)?.focus();
  }, [faqOpen]);

  function showFaq(open: boolean) {
    moveFocus.current = true;
    setFaqOpen(open);
  }

  function onPanelKeyDown(event: KeyboardEvent<HTMLElement>) {
    if (event.key === 'Escape') {
      event.stopPropagation();
      showFaq(false);
    }
  }

  function toggleVideo() {
    const video = videoRef.current;
    if (!video) return;
    if (!video.paused) {
      video.pause();
      return;
    }
    // The browser may refuse (e.g. a data-saving mode); the still frame stays and the label keeps saying "Play".
    video.play().catch((error: unknown) => console.warn('Background video did not play:', error));
  }

  return (
    <div className="maintenance">
      {!reducedMotion && (
        <video
          ref={attachVideo}
          className="maintenance-video"
          src={VIDEO_URL}
          aria-hidden="true"
          tabIndex={-1}
          autoPlay
          loop
          muted
          playsInline
          preload="auto"
          disablePictureInPicture
          onPlaying={() => setVideoPlaying(true)}
          onPause={() => setVideoPlaying(false)}
        />
      )}
      <div className="maintenance-shade" aria-hidden="true" />

      <header className="maintenance-topbar">
        {/* Both come from configuration; an unset value hides its part rather than showing a dead link. */}
        {contactEmail && (
          <p>
            For custom blocks please contact <a href={`mailto:${contactEmail}`}>{contactEmail}</a>
          </p>
        )}
        {companyUrl && (
          <a className="button maintenance-site-link" href={companyUrl}>
            Visit our site
          </a>
        )}
      </header>

      <main className="maintenance-main">
        <Logo className="maintenance-logo" />
        {/* The message stays the page's h1; while the FAQ covers it, only screen readers still hear it. */}
        <h1 className={faqOpen ? 'visually-hidden' : 'maintenance-message'}>{MESSAGE}</h1>
        {faqOpen ? (
          <section className="maintenance-panel" aria-labelledby={panelHeadingId} onKeyDown={onPanelKeyDown}>
            <h2 id={panelHeadingId} ref={panelHeadingRef} tabIndex={-1}>
              Frequently asked questions
            </h2>
            <FaqList />
            <div className="maintenance-panel-actions">
              <button type="button" className="button primary" onClick={() => showFaq(false)}>
                Close
              </button>
            </div>
          </section>
        ) : (
          <button ref={learnMoreRef} type="button" className="button primary maintenance-learn-more" onClick={() => showFaq(true)}>
            LEARN MORE
          </button>
        )}
      </main>

      <footer className="maintenance-footer">
        <p>© 2025 Slipstream. All rights reserved.</p>
        {!reducedMotion && (
          <button type="button" className="button small maintenance-video-toggle" onClick={toggleVideo}>
            {videoPlaying ? 'Pause background animation' : 'Play background animation'}
          </button>
        )}
      </footer>
    </div>
  );
}
