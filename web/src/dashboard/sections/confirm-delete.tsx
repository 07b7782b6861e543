import { closeDialogOf, formFailure, FormError } from '../../components/form-field.tsx';
import { DASHBOARD_TOAST, notify } from '../../lib/toasts.tsx';

/** The delete mutation of a list row, as the api/ hooks return it. */
interface DeleteMutation {
  isPending: boolean;
  error: Error | null;
  mutate(id: number, callbacks: { onSuccess: () => void }): void;
}

/**
 * The delete mode of a back-office dialog (docs/behaviour.md#dialogs): the question,
 * the server's refusal if any, Cancel and Delete; on success a toast and the
 * dialog closes.
 */
export function ConfirmDelete({ question, id, remove, successMessage }: { question: string; id: number; remove: DeleteMutation; successMessage: string }) {
  return (
    <div className="modal-form">
      <p>{question}</p>
      <FormError message={formFailure(remove.error)} />
      <div className="modal-actions">
        <button type="button" className="button" onClick={(e) => closeDialogOf(e.currentTarget)}>
          Cancel
        </button>
        <button
          type="button"
          className="button danger-solid"
          disabled={remove.isPending}
          onClick={(e) => {
            const button = e.currentTarget;
            remove.mutate(id, {
              onSuccess: () => {
                notify.success(successMessage, DASHBOARD_TOAST);
                closeDialogOf(button);
              },
            });
          }}
        >
          {remove.isPending ? 'Deleting...' : 'Delete'}
        </button>
      </div>
    </div>
  );
}
