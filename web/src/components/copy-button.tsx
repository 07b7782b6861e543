import { notify } from '../lib/toasts.tsx';

/** Copies `text`; SPEC.md section 8: a clipboard failure says 'Failed to copy!'. */
export function CopyButton({ text, label, copiedMessage }: { text: string; label: string; copiedMessage: string }) {
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      notify.success(copiedMessage);
    } catch {
      notify.error('Failed to copy!');
    }
  }
  return (
    <button type="button" className="button small" aria-label={label} title={label} onClick={() => void copy()}>
      Copy
    </button>
  );
}
