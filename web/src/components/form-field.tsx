import { useState, type ReactNode } from 'react';
import { ApiError } from '../api/http.ts';

/**
 * The dashboard forms' fields and their messages (SPEC.md section 5). A
 * server's 400 for a form is `{status:'error', message, errors:{field: message}}`:
 * each message shows under its own field; a failure that names no field
 * (a 409, a 404) shows above the buttons. The toast says it too, but a modal
 * dialog covers the toasts, so the form must say it itself.
 */

/** The field messages of a failed form call, or none. */
export function serverFieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError) || typeof error.body !== 'object' || error.body === null || !('errors' in error.body)) return {};
  const errors = error.body.errors;
  if (typeof errors !== 'object' || errors === null) return {};
  return Object.fromEntries(Object.entries(errors).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

export interface ServerErrors {
  /** Field name to the server's message for it. */
  fields: Record<string, string>;
  /** The server's message when it names no field. */
  form: string | null;
  /** Takes a failed call's messages. A 401 ends the session instead, so it shows nothing here. */
  show: (error: unknown) => void;
  /** The field was edited: its old message no longer applies. */
  clearField: (name: string) => void;
  clear: () => void;
}

export function useServerErrors(): ServerErrors {
  const [fields, setFields] = useState<Record<string, string>>({});
  const [form, setForm] = useState<string | null>(null);
  return {
    fields,
    form,
    show(error) {
      if (error instanceof ApiError && error.status === 401) return;
      const named = serverFieldErrors(error);
      setFields(named);
      setForm(Object.keys(named).length > 0 ? null : error instanceof Error ? error.message : String(error));
    },
    clearField(name) {
      setFields((current) => {
        if (!(name in current)) return current;
        const next = { ...current };
        delete next[name];
        return next;
      });
      setForm(null);
    },
    clear() {
      setFields({});
      setForm(null);
    },
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
export function FormError({ message }: { message: string | null }) {
  return message ? (
    <p className="form-error" role="alert">
      {message}
    </p>
  ) : null;
}

/** Closes the dialog the element sits in: its close event unmounts the modal, and the browser returns focus. */
export function closeDialogOf(element: Element | null): void {
  element?.closest('dialog')?.close();
}
