import { useAddClient } from '../../api/client-add.ts';
import { useDeleteClient } from '../../api/client-delete.ts';
import { useUpdateClient } from '../../api/client-update.ts';
import type { ClientRow } from '../../api/lists.ts';
import { closeDialogOf, describedBy, FormActions, FormField, useSchemaForm } from '../../components/form-field.tsx';
import { Modal } from '../../components/modal.tsx';
import { DASHBOARD_TOAST, notify } from '../../lib/toasts.tsx';
import { ClientApiKeys } from './client-api-keys.tsx';
import { ClientWebhook } from './client-webhook.tsx';
import { ConfirmDelete } from './confirm-delete.tsx';
import type { DialogState } from './dialog-state.ts';
import { clientSchema } from './form-schemas.ts';

type Field = Exclude<keyof ClientRow, 'id' | 'is_deletable'>;

/** The form in the table's order, with the server's field names. */
const FIELDS: ReadonlyArray<{ name: Field; label: string; type?: 'email' | 'tel'; multiline?: boolean; maxLength: number }> = [
  { name: 'name', label: 'Client Name (required)', maxLength: 200 },
  { name: 'email', label: 'Email', type: 'email', maxLength: 254 },
  { name: 'phone_number', label: 'Phone Number', type: 'tel', maxLength: 20 },
  { name: 'alternate_phone', label: 'Alternate Phone Number', type: 'tel', maxLength: 20 },
  { name: 'address', label: 'Address', multiline: true, maxLength: 1000 },
  { name: 'organization_name', label: 'Organization Name', maxLength: 200 },
  { name: 'organization_email', label: 'Organization Email', type: 'email', maxLength: 254 },
  { name: 'description', label: 'Description', multiline: true, maxLength: 2000 },
];

const fieldId = (name: Field) => `client-${name.replaceAll('_', '-')}`;

const valuesOf = (row: ClientRow | undefined) => Object.fromEntries(FIELDS.map(({ name }) => [name, row?.[name] ?? ''])) as Record<Field, string>;

/** Client Management's dialog state: the shared modes, and a client's API keys (administrators). */
export type ClientDialogState = DialogState<ClientRow> | { mode: 'keys' | 'webhook'; row: ClientRow };

const TITLES = { add: 'Add Client', edit: 'Edit Client', delete: 'Delete Client', keys: 'API Keys', webhook: 'Webhook' } as const;

/** The one modal of Client Management: add, edit, delete, a client's API keys, or its webhook. */
export function ClientDialog({ state, onClose }: { state: NonNullable<ClientDialogState>; onClose: () => void }) {
  return (
    <Modal title={TITLES[state.mode]} onClose={onClose}>
      {state.mode === 'delete' ? (
        <DeleteClient row={state.row} />
      ) : state.mode === 'keys' ? (
        <ClientApiKeys row={state.row} />
      ) : state.mode === 'webhook' ? (
        <ClientWebhook row={state.row} />
      ) : (
        <ClientForm row={state.mode === 'edit' ? state.row : undefined} />
      )}
    </Modal>
  );
}

function ClientForm({ row }: { row: ClientRow | undefined }) {
  const { form, showServerError, errorOf, formError } = useSchemaForm(clientSchema, valuesOf(row));
  const add = useAddClient();
  const update = useUpdateClient();

  const submit = form.handleSubmit((body, event) => {
    const done = (message: string) => () => {
      notify.success(message, DASHBOARD_TOAST);
      closeDialogOf((event?.target as Element | undefined) ?? null);
    };
    if (row) update.mutate({ id: row.id, body }, { onSuccess: done('Client updated successfully!'), onError: showServerError });
    else add.mutate(body, { onSuccess: done('Client added successfully!'), onError: showServerError });
  });

  return (
    <form className="modal-form" noValidate onSubmit={(e) => void submit(e)}>
      {FIELDS.map(({ name, label, type, multiline, maxLength }) => {
        const id = fieldId(name);
        const props = { ...form.register(name), ...describedBy(id, errorOf(name)), maxLength };
        return (
          <FormField key={name} id={id} label={label} error={errorOf(name)}>
            {multiline ? (
              <textarea rows={2} {...props} />
            ) : (
              <input type={type ?? 'text'} inputMode={type === 'tel' ? 'numeric' : undefined} autoComplete="off" {...props} />
            )}
          </FormField>
        );
      })}
      <FormActions message={formError} pending={add.isPending || update.isPending} label={row ? 'Save' : 'Add'} />
    </form>
  );
}

function DeleteClient({ row }: { row: ClientRow }) {
  const remove = useDeleteClient();
  // docs/behaviour.md#dialogs: the discount wording, with the client's name in place of the code.
  return <ConfirmDelete question={`Are you sure you want to delete the client code ${row.name}?`} id={row.id} remove={remove} successMessage="Client deleted successfully!" />;
}
