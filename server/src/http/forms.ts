import { Type, type Static, type TSchema } from 'typebox';
import { ApiError } from './errors.ts';

/**
 * Field-level validation for the dashboard's forms (docs/behaviour.md#validation-rules). The
 * schemas refuse unknown fields and wrong shapes; the services check the
 * values and answer with the documented messages, one per field, so the form
 * can show each message under its field and a toast can show `message`.
 */

/** A 400 of a form: `message` is the first field's message, `errors` every field's. */
export const ValidationErrorResponse = Type.Object(
  {
    status: Type.Literal('error'),
    message: Type.String({ description: 'The first failing field\'s message, exactly as the form shows it' }),
    errors: Type.Optional(
      Type.Record(Type.String(), Type.String(), { description: 'Field name (or setting item) to its message, when the failure is a field\'s' }),
    ),
  },
  { additionalProperties: true },
);

/** Collects field messages; `throwIfAny()` answers them all at once as a 400. */
export class FieldErrors {
  readonly #errors: Record<string, string> = {};

  add(field: string, message: string): void {
    // The first problem of a field is the one to fix first.
    this.#errors[field] ??= message;
  }

  get empty(): boolean {
    return Object.keys(this.#errors).length === 0;
  }

  throwIfAny(): void {
    const first = Object.values(this.#errors)[0];
    if (first !== undefined) throw new ApiError(400, first, { errors: { ...this.#errors } });
  }
}

/** `/{id}` of the update and delete routes: a positive int4, the type of every serial id here. */
export const IdParams = Type.Object(
  { id: Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1, description: 'The record\'s id' }) },
  { additionalProperties: false },
);

/**
 * A form value as a browser form may send it, or null for an empty input.
 * The app's ajv coerces types, and would coerce inside the first branch of a
 * union that fails: null would become 0 in an integer branch, '' in a string
 * one. The null branch is an enum, which ajv never coerces, and comes first,
 * so null stays null and the service can answer 'Required'. Put a string
 * branch before a number one: a number branch coerces '  ' to 0.
 */
export function FormValue<T>(schemas: TSchema[], description: string) {
  return Type.Unsafe<T | null>({ anyOf: [{ enum: [null] }, ...schemas], description });
}

/** Text of an optional form field: trimmed, and blank meaning "none". */
export function optionalText(value: string | null | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

/** The answer of a delete: the dashboard shows its own success toast (docs/behaviour.md#success-toasts). */
export const DeletedResponse = Type.Object({
  status: Type.Literal('success'),
  message: Type.String(),
});
export type DeletedResponse = Static<typeof DeletedResponse>;

/**
 * "Looks like an address" (docs/behaviour.md#validation-rules): one @, no blanks, and a dot
 * inside the domain. Deliverability is the mail system's business; this only
 * catches what was plainly typed wrong.
 */
export function isEmailAddress(text: string): boolean {
  return /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(text);
}
