import { useEffect, useRef, type ReactNode } from 'react';

/**
 * A modal on the browser's own <dialog>: showModal() traps focus, makes the
 * page behind inert and closes on Escape, with no library.
 */
export function Modal({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      if (dialog?.open) dialog.close();
    };
  }, []);
  // Every way out (the button, Escape) goes through the dialog's own close, so
  // the browser returns focus to what opened it before the parent unmounts it.
  // A close event from a dialog that is open again (React's development
  // double effect) is not a close.
  return (
    <dialog
      ref={ref}
      className="modal"
      aria-labelledby="modal-title"
      onClose={() => {
        if (!ref.current?.open) onClose();
      }}
    >
      {/* Its title and Close stay in view when a toast about the dialog appears (lib/toasts.tsx). */}
      <header className="modal-header" data-toast-clear>
        <h2 id="modal-title">{title}</h2>
        <button type="button" className="icon-button" aria-label="Close" onClick={() => ref.current?.close()}>
          ×
        </button>
      </header>
      <div className="modal-body">{children}</div>
    </dialog>
  );
}
