import { useState } from 'react';
import type { UseFormRegisterReturn } from 'react-hook-form';
import { SETTINGS_SAVE_FAILED, useUpdateSettings } from '../../api/settings-update.ts';
import { useSettings, type SettingRow } from '../../api/settings-view.ts';
import { DataTable, type Column } from '../../components/data-table/data-table.tsx';
import { useListState } from '../../components/data-table/use-list-state.ts';
import { closeDialogOf, describedBy, FormActions, FormField, useSchemaForm } from '../../components/form-field.tsx';
import { Modal } from '../../components/modal.tsx';
import { DASHBOARD_TOAST, notify } from '../../lib/toasts.tsx';
import { sectionFor } from '../dashboard-sections.ts';
import type { DialogState } from './dialog-state.ts';
import { optionalSettingSchema, settingSchema } from './form-schemas.ts';
import { titleCase } from './labels.ts';
import { tableFailure, tableLoading } from './list-helpers.ts';

const TITLE = sectionFor('settings').title;
const NO_FILTERS: readonly never[] = [];

/**
 * docs/behaviour.md#settings: every setting with its value and description;
 * administrators edit one at a time. The server answers them all at once, so
 * the table pages them here, with the page and rows per page in the address
 * like every other list.
 */
export function SettingsSection({ isAdmin }: { isAdmin: boolean }) {
  const list = useListState(NO_FILTERS);
  const query = useSettings();
  const [dialog, setDialog] = useState<DialogState<SettingRow>>(null);
  const all = query.data?.result ?? [];
  const rows = all.slice((list.page - 1) * list.limit, list.page * list.limit);
  const columns: Column<SettingRow>[] = [
    { header: 'Name', cell: (row) => titleCase(row.item) },
    { header: 'Value', cell: (row) => <span className="wrap-cell">{row.value}</span> },
    { header: 'Description', cell: (row) => <span className="wrap-cell">{row.description}</span> },
    {
      header: 'Actions',
      adminOnly: true,
      cell: (row) => (
        <button type="button" className="button small" aria-label={`Edit ${titleCase(row.item)}`} onClick={() => setDialog({ mode: 'edit', row })}>
          Edit
        </button>
      ),
    },
  ];
  return (
    <section className="section" aria-labelledby="section-title">
      <h1 id="section-title">{TITLE}</h1>
      <DataTable
        label={TITLE}
        columns={columns}
        rows={rows}
        rowKey={(row) => String(row.id)}
        loading={tableLoading(query)}
        failure={tableFailure(query)}
        total={all.length}
        page={list.page}
        limit={list.limit}
        isAdmin={isAdmin}
        onPageChange={list.setPage}
        onLimitChange={list.setLimit}
      />
      {isAdmin && dialog?.mode === 'edit' && (
        <Modal title={`Edit ${titleCase(dialog.row.item)}`} onClose={() => setDialog(null)}>
          <SettingForm setting={dialog.row} />
        </Modal>
      )}
    </section>
  );
}

/** The value's control follows its type: a number within its bounds, true/false, an email, a web address, or text. */
function ValueInput({ setting, ...props }: { setting: SettingRow } & UseFormRegisterReturn & ReturnType<typeof describedBy>) {
  switch (setting.value_type) {
    case 'boolean':
      return (
        <select {...props}>
          <option value="">Select value</option>
          <option value="true">true</option>
          <option value="false">false</option>
        </select>
      );
    case 'number':
      return <input type="number" step="any" min={setting.min_value ?? undefined} max={setting.max_value ?? undefined} inputMode="decimal" {...props} />;
    case 'email':
      return <input type="email" autoComplete="off" {...props} />;
    case 'url':
      return <input type="url" autoComplete="off" {...props} />;
    case 'text':
      return <input type="text" autoComplete="off" {...props} />;
  }
}

/** What the server checks beyond the type (setting-values.ts ITEM_RULES), said before it is sent. */
const ITEM_HINTS: Record<string, string> = {
  pool_payout_addresses: "Addresses of this portal's network, separated by commas",
  pool_coinbase_tag: 'The text the pool writes in its coinbase, at most 95 bytes',
};

function boundsHint(setting: SettingRow): string | null {
  if (Object.hasOwn(ITEM_HINTS, setting.item)) return ITEM_HINTS[setting.item]!;
  if (setting.value_type !== 'number') return null;
  const { min_value: min, max_value: max } = setting;
  if (min !== null && max !== null) return `A number from ${min} to ${max}`;
  if (min !== null) return `A number, at least ${min}`;
  if (max !== null) return `A number, at most ${max}`;
  return 'A number';
}

function SettingForm({ setting }: { setting: SettingRow }) {
  // The server names a setting's failure by its item.
  const { form, showServerError, errorOf, formError } = useSchemaForm(setting.required ? settingSchema : optionalSettingSchema, { value: setting.value, description: setting.description }, (name) =>
    name === setting.item ? 'value' : undefined,
  );
  const save = useUpdateSettings();
  const valueError = errorOf('value');
  const hint = boundsHint(setting);

  const submit = form.handleSubmit(({ value, description }, event) => {
    save.mutate([{ id: setting.id, item: setting.item, value, description }], {
      onSuccess: () => {
        notify.success('Settings updated successfully!', DASHBOARD_TOAST);
        closeDialogOf((event?.target as Element | undefined) ?? null);
      },
      onError: showServerError,
    });
  });

  return (
    <form className="modal-form" noValidate onSubmit={(e) => void submit(e)}>
      <FormField id="setting-value" label="Value" error={valueError}>
        <ValueInput setting={setting} {...form.register('value')} {...describedBy('setting-value', valueError)} />
      </FormField>
      {hint && <p className="field-hint">{hint}</p>}
      {!setting.required && <p className="field-hint">Optional: leave it blank for none.</p>}
      <FormField id="setting-description" label="Description" error={undefined}>
        <textarea id="setting-description" rows={3} maxLength={1000} {...form.register('description')} />
      </FormField>
      {/* A failure that names no field: the toast says it too, but the dialog covers the toasts. */}
      <FormActions message={formError === null ? null : `${SETTINGS_SAVE_FAILED} ${formError}`} pending={save.isPending} label="Save" />
    </form>
  );
}
