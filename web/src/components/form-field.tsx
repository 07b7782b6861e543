import { valibotResolver } from '@hookform/resolvers/valibot';
import { useEffect, type ReactNode } from 'react';
import { useForm, type DefaultValues, type FieldValues, type Path } from 'react-hook-form';
import type { GenericSchema } from 'valibot';
import { ApiError, GENERIC_FAILURE } from '../api/http.ts';

/**
 * The dashboard forms (docs/behaviour.md#validation-rules), each driven by one schema of its
 * fields with the documented messages. A server's 400 for a form is
 * `{status:'error', message, errors:{field: message}}`: each message shows
 * under its own field; a failure that names no field (a 409, a 404) shows
 * above the buttons. The toast says it too, but a modal dialog covers the
 * toasts, so the form must say it itself.
 */

/** The field messages of a failed form call, or none. */
export function serverFieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError) || typeof error.body !== 'object' || error.body === null || !('errors' in error.body)) return {};
  const errors = error.body.errors;
  if (typeof errors !== 'object' || errors === null) return {};
  return Object.fromEntries(Object.entries(errors).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

/** What a failed call says above the buttons. A 401 ends the session instead, so it says nothing here. */
export function formFailure(error: unknown): string | null {
  if (!error || (error instanceof ApiError && error.status === 401)) return null;
  return error instanceof Error ? error.message : GENERIC_FAILURE;
}

/**
 * A form checked by `schema`: its messages show once the form is sent and
 * then follow each edit, the first field to fix takes the focus (so its
 * message is read out), and the handler gets the schema's output. The
 * server's messages show the same way; `serverField` names the field a
 * server's field name belongs to (by default the field of that name).
 */
export function useSchemaForm<Input extends FieldValues, Output>(
  schema: GenericSchema<Input, Output>,
  defaultValues: DefaultValues<Input>,
  serverField: (name: string) => string | undefined = (name) => (name in defaultValues ? name : undefined),
) {
  const form = useForm<Input, unknown, Output>({
    resolver: valibotResolver(schema),
    defaultValues,
    mode: 'onSubmit',
    reValidateMode: 'onChange',
    // Every rule runs, so one across fields (a date range) is checked while another field is still wrong; each field shows its first message.
    criteriaMode: 'all',
  });
  const { clearErrors, setError, subscribe } = form;
  // An edit makes the server's last refusal stale.
  useEffect(() => subscribe({ formState: { values: true }, callback: () => clearErrors('root.server') }), [subscribe, clearErrors]);

  /** Shows a failed call's messages. */
  function showServerError(error: unknown): void {
    const message = formFailure(error);
    if (message === null) return;
    const named = Object.entries(serverFieldErrors(error)).flatMap(([name, text]) => {
      const field = serverField(name);
      return field === undefined ? [] : [[field, text] as const];
    });
    for (const [field, text] of named) setError(field as Path<Input>, { type: 'server', message: text });
    if (named.length === 0) setError('root.server', { type: 'server', message });
  }

  const errors = form.formState.errors;
  return {
    form,
    showServerError,
    /** A field's message, the form's own or the server's. */
    errorOf: (name: Path<Input>): string | undefined => {
      const message = (errors as Record<string, { message?: unknown } | undefined>)[name]?.message;
      return typeof message === 'string' ? message : undefined;
    },
    /** The server's message when it names no field. */
    formError: errors.root?.server?.message ?? null,
  };
}

/** The attributes that tie a control to its message. */
export function describedBy(id: string, error: string | undefined) {
  return { id, 'aria-invalid': error ? true : undefined, 'aria-describedby': error ? `${id}-error` : undefined } as const;
}

/** A labelled control with its message under it. The control takes `describedBy(id, error)`. */
export function FormField({ id, label, error, children }: { id: string; label: ReactNode; error: string | undefined; children: ReactNode }) {
  return (
    <div className="form-field">
      <label htmlFor={id}>{label}</label>
      {children}
      <FieldError id={id} error={error} />
    </div>
  );
}

export function FieldError({ id, error }: { id: string; error: string | undefined }) {
  return error ? (
    <p id={`${id}-error`} className="field-error">
      {error}
    </p>
  ) : null;
}

/** The form's own message (a failure that names no field), announced when it appears. */
export function FormError({ message }: { message: string | null | undefined }) {
  return message ? (
    <p className="form-error" role="alert">
      {message}
    </p>
  ) : null;
}

/** A dialog form's end: its message, if any, then Cancel and the submit button. */
export function FormActions({ message, pending, label }: { message: string | null | undefined; pending: boolean; label: string }) {
  return (
    <>
      <FormError message={message} />
      <div className="modal-actions">
        <button type="button" className="button" onClick={(e) => closeDialogOf(e.currentTarget)}>
          Cancel
        </button>
        <button type="submit" className="button primary" disabled={pending}>
          {pending ? 'Saving...' : label}
        </button>
      </div>
    </>
  );
}

/** Closes the dialog the element sits in: its close event unmounts the modal, and the browser returns focus. */
export function closeDialogOf(element: Element | null): void {
  element?.closest('dialog')?.close();
}
