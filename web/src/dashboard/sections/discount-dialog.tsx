import { useState } from 'react';
import { Controller, useWatch, type UseFormRegisterReturn } from 'react-hook-form';
import { useAddDiscount } from '../../api/discount-add.ts';
import { useDeleteDiscount } from '../../api/discount-delete.ts';
import { useUpdateDiscount } from '../../api/discount-update.ts';
import { useClientNames } from '../../api/client-names.ts';
import type { DiscountRow } from '../../api/lists.ts';
import type { DateTimeValue } from '../../components/data-table/date-range.ts';
import { DateTimeField } from '../../components/date-time-field.tsx';
import { closeDialogOf, describedBy, FieldError, FormActions, FormField, useSchemaForm } from '../../components/form-field.tsx';
import { Modal } from '../../components/modal.tsx';
import { DASHBOARD_TOAST, notify } from '../../lib/toasts.tsx';
import { ConfirmDelete } from './confirm-delete.tsx';
import type { DialogState } from './dialog-state.ts';
import { DAY_END, DAY_START, discountSchema } from './form-schemas.ts';
import { todayUtc } from './labels.ts';

/** 'yyyy-MM-dd HH:mm:ss' as the pickers hold it; the whole-day time becomes the empty choice. */
function splitDateTime(text: string, wholeDay: string): DateTimeValue {
  const date = text.slice(0, 10);
  const time = text.slice(11).replace(/ /g, '');
  if (time === '' || time === wholeDay) return { date, time: '' };
  return { date, time: time.endsWith(':00') ? time.slice(0, 5) : time };
}

/** Digits only (docs/behaviour.md#validation-rules): anything else typed is dropped. */
function digitsOnly(field: UseFormRegisterReturn): UseFormRegisterReturn {
  return {
    ...field,
    onChange: (event: { target: { value: string } }) => {
      event.target.value = event.target.value.replace(/[^0-9]/g, '');
      return field.onChange(event);
    },
  };
}

/** The form's fields as its controls hold them. */
function valuesOf(row: DiscountRow | undefined) {
  return {
    client_name: row?.client_name ?? '',
    description: row?.description ?? '',
    discount_percentage: row ? String(row.discount_percentage) : '',
    valid_from: row ? splitDateTime(row.valid_from, DAY_START) : { date: '', time: '' },
    valid_until: row ? splitDateTime(row.valid_until, DAY_END) : { date: '', time: '' },
    // A new code starts active (docs/behaviour.md#discount-management).
    status: (row ? String(row.status) : 'true') as '' | 'true' | 'false',
  };
}

/** The one modal of Discount Management: add, edit or delete (docs/behaviour.md#dialogs). */
export function DiscountDialog({ state, onClose }: { state: NonNullable<DialogState<DiscountRow>>; onClose: () => void }) {
  const title = state.mode === 'add' ? 'Add New Discount' : state.mode === 'edit' ? 'Edit Discount' : 'Delete Discount';
  return (
    <Modal title={title} onClose={onClose}>
      {state.mode === 'delete' ? <DeleteDiscount row={state.row} /> : <DiscountForm row={state.mode === 'edit' ? state.row : undefined} />}
    </Modal>
  );
}

function DiscountForm({ row }: { row: DiscountRow | undefined }) {
  // docs/behaviour.md#discount-management: the from-date picker starts today; a code that began earlier keeps its date when edited.
  const [earliestFrom] = useState(() => {
    const today = todayUtc();
    return row && row.valid_from.slice(0, 10) < today ? row.valid_from.slice(0, 10) : today;
  });
  const [schema] = useState(() => discountSchema(earliestFrom));
  const { form, showServerError, errorOf, formError } = useSchemaForm(schema, valuesOf(row));
  const { control, register, handleSubmit } = form;
  const validFrom = useWatch({ control, name: 'valid_from' });
  const names = useClientNames();
  const add = useAddDiscount();
  const update = useUpdateDiscount();

  const clientNames = names.data ?? [];
  const options = row && !clientNames.includes(row.client_name) ? [row.client_name, ...clientNames] : clientNames;

  const submit = handleSubmit((body, event) => {
    const done = (message: string) => () => {
      notify.success(message, DASHBOARD_TOAST);
      closeDialogOf((event?.target as Element | undefined) ?? null);
    };
    if (row) update.mutate({ id: row.id, body }, { onSuccess: done('Client code edited successfully!'), onError: showServerError });
    else add.mutate(body, { onSuccess: done('Client code added successfully!'), onError: showServerError });
  });

  return (
    <form className="modal-form" noValidate onSubmit={(e) => void submit(e)}>
      {row && (
        <FormField id="discount-code" label="Code" error={undefined}>
          <input id="discount-code" type="text" value={row.code} readOnly />
        </FormField>
      )}
      <FormField id="discount-client" label="Client" error={errorOf('client_name')}>
        <select {...register('client_name')} {...describedBy('discount-client', errorOf('client_name'))}>
          <option value="">{names.isPending ? 'Loading clients...' : 'Select client'}</option>
          {options.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </FormField>
      <FormField id="discount-description" label="Description" error={errorOf('description')}>
        <textarea rows={2} maxLength={2000} {...register('description')} {...describedBy('discount-description', errorOf('description'))} />
      </FormField>
      <FormField id="discount-percentage" label="Discount (%)" error={errorOf('discount_percentage')}>
        <input
          type="text"
          inputMode="numeric"
          autoComplete="off"
          {...digitsOnly(register('discount_percentage'))}
          {...describedBy('discount-percentage', errorOf('discount_percentage'))}
        />
      </FormField>
      <Controller
        control={control}
        name="valid_from"
        // The range is checked again when either end changes.
        rules={{ deps: ['valid_until'] }}
        render={({ field }) => (
          <DateTimeField
            id="discount-valid-from"
            label="Valid From"
            value={field.value}
            minDate={earliestFrom}
            wholeDayLabel="Start of day (00:00:00)"
            onChange={field.onChange}
            inputRef={field.ref}
            error={errorOf('valid_from')}
          />
        )}
      />
      <Controller
        control={control}
        name="valid_until"
        render={({ field }) => (
          <DateTimeField
            id="discount-valid-until"
            label="Valid Until"
            value={field.value}
            // Valid-until cannot precede valid-from (docs/behaviour.md#discount-management).
            minDate={validFrom.date || earliestFrom}
            wholeDayLabel="End of day (23:59:59)"
            onChange={field.onChange}
            inputRef={field.ref}
            error={errorOf('valid_until')}
          />
        )}
      />
      {row ? (
        <fieldset className="form-field radio-group" aria-describedby={errorOf('status') ? 'discount-status-error' : undefined}>
          <legend>Status</legend>
          {(['true', 'false'] as const).map((value) => (
            <label key={value}>
              <input type="radio" value={value} {...register('status')} />
              {value === 'true' ? 'Active' : 'Inactive'}
            </label>
          ))}
          <FieldError id="discount-status" error={errorOf('status')} />
        </fieldset>
      ) : (
        <FormField id="discount-status" label="Status" error={errorOf('status')}>
          <select {...register('status')} {...describedBy('discount-status', errorOf('status'))}>
            {/* docs/behaviour.md#discount-management: an empty placeholder option; left empty, a new code starts active. */}
            <option value="">Select status</option>
            <option value="true">Active</option>
            <option value="false">Inactive</option>
          </select>
        </FormField>
      )}
      <FormActions message={formError} pending={add.isPending || update.isPending} label={row ? 'Save' : 'Add'} />
    </form>
  );
}

function DeleteDiscount({ row }: { row: DiscountRow }) {
  const remove = useDeleteDiscount();
  return <ConfirmDelete question={`Are you sure you want to delete the client code ${row.code}?`} id={row.id} remove={remove} successMessage="Client code deleted successfully!" />;
}
