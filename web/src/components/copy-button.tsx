import { notify } from '../lib/toasts.tsx';

/**
 * Copies `text`, or what `load` fetches when pressed (a list's shortened
 * transaction hex is fetched whole only then); docs/behaviour.md#error-messages: a clipboard
 * or fetch failure says 'Failed to copy!'.
 */
export function CopyButton({ text, load, label, copiedMessage }: { text?: string; load?: () => Promise<string>; label: string; copiedMessage: string }) {
  async function copy() {
    try {
      if (load) await copyLoaded(load);
      else await navigator.clipboard.writeText(text ?? '');
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

/**
 * Hands the clipboard a promise of the text at once, while the click still
 * counts as the user's gesture (Safari refuses a write after an await);
 * where ClipboardItem is missing, writes the text once it has come.
 */
async function copyLoaded(load: () => Promise<string>): Promise<void> {
  if (typeof ClipboardItem !== 'undefined' && typeof navigator.clipboard.write === 'function') {
    const blob = load().then((text) => new Blob([text], { type: 'text/plain' }));
    await navigator.clipboard.write([new ClipboardItem({ 'text/plain': blob })]);
    return;
  }
  await navigator.clipboard.writeText(await load());
}
