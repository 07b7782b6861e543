import { useRef, useState, type FormEvent } from 'react';
import { useAddDiscount, type DiscountBody } from '../../api/client-code-add.ts';
import { useDeleteDiscount } from '../../api/client-code-delete.ts';
import { useUpdateDiscount } from '../../api/client-code-update.ts';
import type { DiscountRow } from '../../api/lists.ts';
import { useClientNames } from '../../api/client-names.ts';
import { DATE_INPUT_NOT_VALID, isValidDate } from '../../components/data-table/date-range.ts';
import { DateTimeField, type DateTimeValue } from '../../components/date-time-field.tsx';
import { closeDialogOf, describedBy, FieldError, FormError, FormField, useServerErrors } from '../../components/form-field.tsx';
import { Modal } from '../../components/modal.tsx';
import { DASHBOARD_TOAST, notify } from '../../lib/toasts.tsx';
import { ConfirmDelete } from './confirm-delete.tsx';
import type { DialogState } from './dialog-state.ts';
import { todayUtc } from './labels.ts';

/** SPEC.md section 5: the discount form's messages, as the server gives them too. */
export const REQUIRED = 'Required';
export const PERCENTAGE_RANGE = 'Must be between 0 and 99.';
export const INVALID_DATE_RANGE = 'Invalid date range.';

/** The discount dates are UTC text; a date alone means the whole day (SPEC.md section 7). */
const DAY_START = '00:00:00';
const DAY_END = '23:59:59';

type Field = 'client_name' | 'description' | 'discount_percentage' | 'valid_from' | 'valid_until' | 'status';

/** Each field's control, by the server's field name. */
const FIELD_IDS: Record<Field, string> = {
  client_name: 'discount-client',
  description: 'discount-description',
  discount_percentage: 'discount-percentage',
  valid_from: 'discount-valid-from',
  valid_until: 'discount-valid-until',
  status: 'discount-status',
};

interface Draft {
  client_name: string;
  description: string;
  discount_percentage: string;
  valid_from: DateTimeValue;
  valid_until: DateTimeValue;
  /** 'true' or 'false'; '' (the select's empty placeholder) lets a new code start active. */
  status: '' | 'true' | 'false';
}

/** 'yyyy-MM-dd HH:mm:ss' as the pickers hold it; the whole-day time becomes the empty choice. */
function splitDateTime(text: string, wholeDay: string): DateTimeValue {
  const date = text.slice(0, 10);
  const time = text.slice(11).replace(/ /g, '');
  if (time === '' || time === wholeDay) return { date, time: '' };
  return { date, time: time.endsWith(':00') ? time.slice(0, 5) : time };
}

/** What the server gets: 'date HH:mm:ss'. */
function joinDateTime(value: DateTimeValue, wholeDay: string): string {
  const time = value.time === '' ? wholeDay : value.time.length === 5 ? `${value.time}:00` : value.time;
  return `${value.date} ${time}`;
}

/** SPEC.md section 7: a date-only end is sent as 'date 23: 59: 59' (the server reads it as 23:59:59). */
function untilText(value: DateTimeValue): string {
  return value.time === '' ? `${value.date} 23: 59: 59` : joinDateTime(value, DAY_END);
}

function draftOf(row: DiscountRow | undefined): Draft {
  if (!row) {
    return { client_name: '', description: '', discount_percentage: '', valid_from: { date: '', time: '' }, valid_until: { date: '', time: '' }, status: 'true' };
  }
  return {
    client_name: row.client_name,
    description: row.description ?? '',
    discount_percentage: String(row.discount_percentage),
    valid_from: splitDateTime(row.valid_from, DAY_START),
    valid_until: splitDateTime(row.valid_until, DAY_END),
    status: row.status ? 'true' : 'false',
  };
}

/** SPEC.md section 5, checked before sending; the server checks the same and its messages show the same way. */
function validate(draft: Draft, earliestFrom: string): Partial<Record<Field, string>> {
  const errors: Partial<Record<Field, string>> = {};
  if (draft.client_name.trim() === '') errors.client_name = REQUIRED;
  const percentage = draft.discount_percentage.trim();
  if (percentage === '') errors.discount_percentage = REQUIRED;
  else if (!/^[0-9]+$/.test(percentage) || Number(percentage) > 99) errors.discount_percentage = PERCENTAGE_RANGE;
  const { valid_from: from, valid_until: until } = draft;
  if (from.date === '') errors.valid_from = REQUIRED;
  else if (!isValidDate(from.date) || from.date < earliestFrom) errors.valid_from = DATE_INPUT_NOT_VALID;
  if (until.date === '') errors.valid_until = REQUIRED;
  else if (!isValidDate(until.date)) errors.valid_until = DATE_INPUT_NOT_VALID;
  if (!errors.valid_from && !errors.valid_until && joinDateTime(from, DAY_START) > joinDateTime(until, DAY_END)) {
    errors.valid_until = INVALID_DATE_RANGE;
  }
  return errors;
}

/** The one modal of Discount Management: add, edit or delete (SPEC.md section 4). */
export function DiscountDialog({ state, onClose }: { state: NonNullable<DialogState<DiscountRow>>; onClose: () => void }) {
  const title = state.mode === 'add' ? 'Add New Discount' : state.mode === 'edit' ? 'Edit Discount' : 'Delete Discount';
  return (
    <Modal title={title} onClose={onClose}>
      {state.mode === 'delete' ? <DeleteDiscount row={state.row} /> : <DiscountForm row={state.mode === 'edit' ? state.row : undefined} />}
    </Modal>
  );
}

function DiscountForm({ row }: { row: DiscountRow | undefined }) {
  const formRef = useRef<HTMLFormElement>(null);
  const [draft, setDraft] = useState(() => draftOf(row));
  const [attempted, setAttempted] = useState(false);
  const server = useServerErrors();
  const names = useClientNames();
  const add = useAddDiscount();
  const update = useUpdateDiscount();
  const pending = add.isPending || update.isPending;

  // SPEC.md section 5: the from-date picker starts today; a code that began earlier keeps its date when edited.
  const today = todayUtc();
  const originalFrom = row ? row.valid_from.slice(0, 10) : today;
  const earliestFrom = originalFrom < today ? originalFrom : today;
  const clientErrors = validate(draft, earliestFrom);
  const error = (field: Field) => (attempted ? clientErrors[field] : undefined) ?? server.fields[field];

  const set = <K extends keyof Draft>(field: K, value: Draft[K]) => {
    setDraft((current) => ({ ...current, [field]: value }));
    server.clearField(field);
  };

  const clientNames = names.data ?? [];
  const options = row && !clientNames.includes(row.client_name) ? [row.client_name, ...clientNames] : clientNames;

  function submit(event: FormEvent) {
    event.preventDefault();
    setAttempted(true);
    const first = (Object.keys(clientErrors) as Field[])[0];
    if (first) {
      // The first field to fix takes the focus, so its message is read out.
      formRef.current?.querySelector<HTMLElement>(`#${FIELD_IDS[first]}`)?.focus();
      return;
    }
    server.clear();
    const body: DiscountBody = {
      client_name: draft.client_name,
      description: draft.description,
      discount_percentage: Number(draft.discount_percentage.trim()),
      valid_from: joinDateTime(draft.valid_from, DAY_START),
      valid_until: untilText(draft.valid_until),
      status: draft.status === '' ? null : draft.status === 'true',
    };
    const done = (message: string) => () => {
      notify.success(message, DASHBOARD_TOAST);
      closeDialogOf(formRef.current);
    };
    if (row) update.mutate({ id: row.id, body }, { onSuccess: done('Client code edited successfully!'), onError: server.show });
    else add.mutate(body, { onSuccess: done('Client code added successfully!'), onError: server.show });
  }

  return (
    <form ref={formRef} className="modal-form" noValidate onSubmit={submit}>
      {row && (
        <FormField id="discount-code" label="Code" error={undefined}>
          <input id="discount-code" type="text" value={row.code} readOnly />
        </FormField>
      )}
      <FormField id={FIELD_IDS.client_name} label="Client" error={error('client_name')}>
        <select value={draft.client_name} onChange={(e) => set('client_name', e.target.value)} {...describedBy(FIELD_IDS.client_name, error('client_name'))}>
          <option value="">{names.isPending ? 'Loading clients...' : 'Select client'}</option>
          {options.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </FormField>
      <FormField id={FIELD_IDS.description} label="Description" error={error('description')}>
        <textarea
          rows={2}
          maxLength={2000}
          value={draft.description}
          onChange={(e) => set('description', e.target.value)}
          {...describedBy(FIELD_IDS.description, error('description'))}
        />
      </FormField>
      <FormField id={FIELD_IDS.discount_percentage} label="Discount (%)" error={error('discount_percentage')}>
        <input
          type="text"
          inputMode="numeric"
          autoComplete="off"
          value={draft.discount_percentage}
          // Digits only (SPEC.md section 5).
          onChange={(e) => set('discount_percentage', e.target.value.replace(/[^0-9]/g, ''))}
          {...describedBy(FIELD_IDS.discount_percentage, error('discount_percentage'))}
        />
      </FormField>
      <DateTimeField
        id={FIELD_IDS.valid_from}
        label="Valid From"
        value={draft.valid_from}
        minDate={earliestFrom}
        wholeDayLabel="Start of day (00:00:00)"
        onChange={(value) => set('valid_from', value)}
        error={error('valid_from')}
      />
      <DateTimeField
        id={FIELD_IDS.valid_until}
        label="Valid Until"
        value={draft.valid_until}
        // Valid-until cannot precede valid-from (SPEC.md section 5).
        minDate={draft.valid_from.date || earliestFrom}
        wholeDayLabel="End of day (23:59:59)"
        onChange={(value) => set('valid_until', value)}
        error={error('valid_until')}
      />
      {row ? (
        <fieldset className="form-field radio-group" aria-describedby={error('status') ? 'discount-status-error' : undefined}>
          <legend>Status</legend>
          {(['true', 'false'] as const).map((value) => (
            <label key={value}>
              <input type="radio" name="discount-status" value={value} checked={draft.status === value} onChange={() => set('status', value)} />
              {value === 'true' ? 'Active' : 'Inactive'}
            </label>
          ))}
          <FieldError id="discount-status" error={error('status')} />
        </fieldset>
      ) : (
        <FormField id={FIELD_IDS.status} label="Status" error={error('status')}>
          <select value={draft.status} onChange={(e) => set('status', e.target.value as Draft['status'])} {...describedBy(FIELD_IDS.status, error('status'))}>
            {/* SPEC.md section 5: an empty placeholder option; left empty, a new code starts active. */}
            <option value="">Select status</option>
            <option value="true">Active</option>
            <option value="false">Inactive</option>
          </select>
        </FormField>
      )}
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

function DeleteDiscount({ row }: { row: DiscountRow }) {
  const remove = useDeleteDiscount();
  return <ConfirmDelete question={`Are you sure you want to delete the client code ${row.code}?`} id={row.id} remove={remove} successMessage="Client code deleted successfully!" />;
}
