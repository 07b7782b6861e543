import { useRef, useState, type FormEvent } from 'react';
import { useAddClient, type ClientBody } from '../../api/client-add.ts';
import { useDeleteClient } from '../../api/client-delete.ts';
import { useUpdateClient } from '../../api/client-update.ts';
import type { ClientRow } from '../../api/lists.ts';
import { closeDialogOf, describedBy, FormError, FormField, useServerErrors } from '../../components/form-field.tsx';
import { Modal } from '../../components/modal.tsx';
import { DASHBOARD_TOAST, notify } from '../../lib/toasts.tsx';
import { ConfirmDelete } from './confirm-delete.tsx';
import type { DialogState } from './dialog-state.ts';

type Field = 'name' | 'email' | 'phone_number' | 'alternate_phone' | 'address' | 'organization_name' | 'organization_email' | 'description';
type Draft = Record<Field, string>;

/** The form in the table's order, with the server's field names. */
const FIELDS: ReadonlyArray<{ name: Field; label: string; type?: 'email' | 'tel'; multiline?: boolean; maxLength: number }> = [
  { name: 'name', label: 'Client Name', maxLength: 200 },
  { name: 'email', label: 'Email', type: 'email', maxLength: 254 },
  { name: 'phone_number', label: 'Phone Number', type: 'tel', maxLength: 20 },
  { name: 'alternate_phone', label: 'Alternate Phone Number', type: 'tel', maxLength: 20 },
  { name: 'address', label: 'Address', multiline: true, maxLength: 1000 },
  { name: 'organization_name', label: 'Organization Name', maxLength: 200 },
  { name: 'organization_email', label: 'Organization Email', type: 'email', maxLength: 254 },
  { name: 'description', label: 'Description', multiline: true, maxLength: 2000 },
];

const fieldId = (name: Field) => `client-${name.replaceAll('_', '-')}`;

/** "Looks like an address" as the server checks it: one @, no blanks, a dot inside the domain. */
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
/** Digits only; the server allows at most 20. */
const PHONE = /^[0-9]{1,20}$/;

/** SPEC.md section 5, with its messages; blank optional fields are fine. */
function validate(draft: Draft): Partial<Record<Field, string>> {
  const errors: Partial<Record<Field, string>> = {};
  const value = (field: Field) => draft[field].trim();
  if (value('name') === '') errors.name = 'Name is required';
  if (value('email') !== '' && !EMAIL.test(value('email'))) errors.email = 'Email is invalid';
  if (value('phone_number') !== '' && !PHONE.test(value('phone_number'))) errors.phone_number = 'Phone number is invalid';
  if (value('alternate_phone') !== '' && !PHONE.test(value('alternate_phone'))) errors.alternate_phone = 'Alternate phone number is invalid';
  if (value('organization_email') !== '' && !EMAIL.test(value('organization_email'))) errors.organization_email = 'Organization email is invalid';
  return errors;
}

function draftOf(row: ClientRow | undefined): Draft {
  return Object.fromEntries(FIELDS.map(({ name }) => [name, row?.[name] ?? ''])) as Draft;
}

/** The one modal of Client Management: add, edit or delete. */
export function ClientDialog({ state, onClose }: { state: NonNullable<DialogState<ClientRow>>; onClose: () => void }) {
  const title = state.mode === 'add' ? 'Add Client' : state.mode === 'edit' ? 'Edit Client' : 'Delete Client';
  return (
    <Modal title={title} onClose={onClose}>
      {state.mode === 'delete' ? <DeleteClient row={state.row} /> : <ClientForm row={state.mode === 'edit' ? state.row : undefined} />}
    </Modal>
  );
}

function ClientForm({ row }: { row: ClientRow | undefined }) {
  const formRef = useRef<HTMLFormElement>(null);
  const [draft, setDraft] = useState(() => draftOf(row));
  const [attempted, setAttempted] = useState(false);
  const server = useServerErrors();
  const add = useAddClient();
  const update = useUpdateClient();
  const pending = add.isPending || update.isPending;
  const clientErrors = validate(draft);
  const error = (field: Field) => (attempted ? clientErrors[field] : undefined) ?? server.fields[field];

  function submit(event: FormEvent) {
    event.preventDefault();
    setAttempted(true);
    const first = FIELDS.find(({ name }) => clientErrors[name]);
    if (first) {
      // The first field to fix takes the focus, so its message is read out.
      formRef.current?.querySelector<HTMLElement>(`#${fieldId(first.name)}`)?.focus();
      return;
    }
    server.clear();
    // An update replaces every field, so the form always sends them all.
    const body: ClientBody = Object.fromEntries(FIELDS.map(({ name }) => [name, draft[name].trim()]));
    const done = (message: string) => () => {
      notify.success(message, DASHBOARD_TOAST);
      closeDialogOf(formRef.current);
    };
    if (row) update.mutate({ id: row.id, body }, { onSuccess: done('Client updated successfully!'), onError: server.show });
    else add.mutate(body, { onSuccess: done('Client added successfully!'), onError: server.show });
  }

  return (
    <form ref={formRef} className="modal-form" noValidate onSubmit={submit}>
      {FIELDS.map(({ name, label, type, multiline, maxLength }) => {
        const id = fieldId(name);
        const props = {
          ...describedBy(id, error(name)),
          maxLength,
          value: draft[name],
          onChange: (e: { target: { value: string } }) => {
            setDraft((current) => ({ ...current, [name]: e.target.value }));
            server.clearField(name);
          },
        };
        return (
          <FormField key={name} id={id} label={name === 'name' ? `${label} (required)` : label} error={error(name)}>
            {multiline ? (
              <textarea rows={2} {...props} />
            ) : (
              <input type={type ?? 'text'} inputMode={type === 'tel' ? 'numeric' : undefined} autoComplete="off" {...props} />
            )}
          </FormField>
        );
      })}
      <FormError message={server.form} />
      <div className="modal-actions">
        <button type="button" className="button" onClick={(e) => closeDialogOf(e.currentTarget)}>
          Cancel
        </button>
        <button type="submit" className="button primary" disabled={pending}>
          {pending ? 'Saving...' : row ? 'Save' : 'Add'}
        </button>
      </div>
    </form>
  );
}

function DeleteClient({ row }: { row: ClientRow }) {
  const remove = useDeleteClient();
  // SPEC.md section 4: the discount wording, with the client's name in place of the code.
  return <ConfirmDelete question={`Are you sure you want to delete the client code ${row.name}?`} id={row.id} remove={remove} successMessage="Client deleted successfully!" />;
}
