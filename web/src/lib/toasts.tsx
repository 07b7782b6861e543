// The unstyled build and the stylesheet as a file: the default build injects
// its CSS as an inline <style> element, which the portal's Content-Security-Policy
// (style-src 'self', server/src/http/security-headers.ts) refuses.
import { useEffect, useRef, useState } from 'react';
import { useLocation } from 'react-router';
import { ToastContainer, toast, type Id, type ToastOptions } from 'react-toastify/unstyled';
import 'react-toastify/ReactToastify.css';
import { pageOf } from './page-of.ts';

/** docs/behaviour.md#limits-and-constants: public pages' toasts close after 5000 ms, the dashboard's after 3000 ms. */
export const PUBLIC_TOAST_MS = 5000;
export const DASHBOARD_TOAST_MS = 3000;

/** The dashboard's toasts close sooner (docs/behaviour.md#limits-and-constants); the container already does so on /dashboard. */
export const DASHBOARD_TOAST: ToastOptions = { autoClose: DASHBOARD_TOAST_MS };

/** Elements marked with this attribute (headers, a page's own top controls) are never covered by a toast. */
export const TOAST_CLEAR_ATTRIBUTE = 'data-toast-clear';
const GAP_PX = 8;

/**
 * An open modal <dialog> (components/modal.tsx) sits in the browser's top
 * layer, above anything a z-index can lift, and its backdrop dims the rest:
 * a toast about what was just done in the dialog would show dimmed beneath
 * it. So the toasts live in a manual popover, also in the top layer, shown
 * again on each new toast: the last element shown there is the topmost.
 */
function raise(layer: HTMLDivElement | null): void {
  if (!layer || typeof layer.showPopover !== 'function') return;
  if (layer.matches(':popover-open')) layer.hidePopover();
  layer.showPopover();
}

/** What a toast says about the page it appeared on: it goes when the user leaves that page. */
const pageBound = new Set<Id>();

/** How far down the toasts start: below the lowest element they must keep clear of. */
function clearTop(): number {
  let bottom = 0;
  for (const element of document.querySelectorAll(`[${TOAST_CLEAR_ATTRIBUTE}]`)) {
    bottom = Math.max(bottom, element.getBoundingClientRect().bottom);
  }
  return Math.max(16, Math.round(bottom) + GAP_PX);
}

/**
 * docs/behaviour.md#limits-and-constants: top-right, drag to dismiss at 80%, Alt+T to focus; 5000
 * ms on public pages and 3000 ms on the dashboard. A toast about a page goes
 * when the user leaves it, and toasts start below the headers and a page's
 * top controls (the status page's Refresh and Close) rather than over them.
 */
export function Toasts() {
  const { pathname, search } = useLocation();
  const page = pageOf(pathname, search);
  const [top, setTop] = useState(16);
  const shownOn = useRef(page);
  const layer = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (shownOn.current === page) return;
    shownOn.current = page;
    for (const id of pageBound) toast.dismiss(id);
    pageBound.clear();
  }, [page]);

  // Measured when a toast appears, so it follows whatever the page shows at that moment.
  useEffect(
    () =>
      toast.onChange((item) => {
        if (item.status === 'added') {
          setTop(clearTop());
          raise(layer.current);
        }
        if (item.status === 'removed') pageBound.delete(item.id);
      }),
    [],
  );

  return (
    <div ref={layer} popover="manual" className="toast-layer">
      <ToastContainer
        position="top-right"
        autoClose={pathname.startsWith('/dashboard') ? DASHBOARD_TOAST_MS : PUBLIC_TOAST_MS}
        draggable
        draggablePercent={80}
        style={{ top }}
      />
    </div>
  );
}

/** What names a toast shown, to close it later. */
export type ToastId = Id;

export interface NotifyOptions extends ToastOptions {
  /** The toast announces a move to another page ('Login successful!', 'Session expired...'): it stays across it. */
  keepOnNavigate?: boolean;
}

function show(kind: 'success' | 'error', message: string, options: NotifyOptions = {}): Id {
  const { keepOnNavigate, ...rest } = options;
  const id = toast[kind](message, rest);
  if (!keepOnNavigate) pageBound.add(id);
  return id;
}

export const notify = {
  success: (message: string, options?: NotifyOptions) => show('success', message, options),
  error: (message: string, options?: NotifyOptions) => show('error', message, options),
  /** Closes a toast that no longer holds (an earlier outcome a new one replaces). */
  dismiss: (id: Id) => toast.dismiss(id),
};
