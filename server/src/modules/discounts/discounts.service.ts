import type { Database, Queryable } from '../../db/database.ts';
import { ApiError } from '../../http/errors.ts';
import { FieldErrors, optionalText, type DeletedResponse } from '../../http/forms.ts';
import { filterText, formatDateTime, pageWindow, parseDateRange, parseFilterDateTime, totalPages } from '../../http/list-query.ts';
import { actorOf, logDiscountChange, type ChangeActor, type LoggedValues } from '../change-logs/change-logs.repository.ts';
import { generateClientCode, type CodeGenerator } from './discount-codes.ts';
import {
  deleteDiscount,
  findClientForCode,
  findDiscount,
  insertDiscount,
  listDiscounts,
  lockDiscount,
  updateDiscount,
  type DiscountFields,
  type DiscountRecord,
} from './discounts.repository.ts';
import type { DiscountBody, DiscountListQuery, DiscountListResponse, DiscountRow } from './discounts.schemas.ts';

/**
 * Discount Management (docs/behaviour.md#discount-management). Every change and its
 * discount log entry are written in one transaction.
 */

export const REQUIRED = 'Required';
export const PERCENTAGE_RANGE = 'Must be between 0 and 99.';
export const INVALID_DATE_RANGE = 'Invalid date range.';
export const INVALID_DATE = 'Date input not valid.';

export const unknownClientMessage = (name: string) => `Client '${name}' does not exist. Add the client first, or pick one from the list.`;
export const discountNotFoundMessage = (id: number) => `Discount ${id} does not exist.`;

/** The form as checked: what the code's row gets, apart from the client's id. */
export interface DiscountInput {
  clientName: string;
  description: string | null;
  discountPercentage: number;
  validFrom: Date;
  validUntil: Date;
  /** undefined: active for a new code, unchanged on update. */
  status: boolean | undefined;
}

function percentage(value: DiscountBody['discount_percentage'], errors: FieldErrors): number | undefined {
  const text = typeof value === 'string' ? value.trim() : value;
  if (text === undefined || text === null || text === '') {
    errors.add('discount_percentage', REQUIRED);
    return undefined;
  }
  // Digits only (docs/behaviour.md#validation-rules): a whole number, no sign, no decimals.
  const n = typeof text === 'number' ? text : /^[0-9]+$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > 99) {
    errors.add('discount_percentage', PERCENTAGE_RANGE);
    return undefined;
  }
  return n;
}

function dateTime(field: 'valid_from' | 'valid_until', value: string | null | undefined, errors: FieldErrors): Date | undefined {
  const text = optionalText(value);
  if (text === null) {
    errors.add(field, REQUIRED);
    return undefined;
  }
  const date = parseFilterDateTime(text);
  if (!date) errors.add(field, INVALID_DATE);
  return date;
}

/** The form's values checked with the documented messages (docs/behaviour.md#validation-rules). The client's existence is checked in the transaction. */
export function validateDiscount(body: DiscountBody): DiscountInput {
  const errors = new FieldErrors();
  const clientName = optionalText(body.client_name);
  if (clientName === null) errors.add('client_name', REQUIRED);
  const discountPercentage = percentage(body.discount_percentage, errors);
  const validFrom = dateTime('valid_from', body.valid_from, errors);
  const validUntil = dateTime('valid_until', body.valid_until, errors);
  if (validFrom && validUntil && validFrom > validUntil) errors.add('valid_until', INVALID_DATE_RANGE);
  errors.throwIfAny();
  return {
    clientName: clientName!,
    description: optionalText(body.description),
    discountPercentage: discountPercentage!,
    validFrom: validFrom!,
    // The form names the last second of validity ('… 23:59:59'): the code is
    // good to the end of it, not just to its start.
    validUntil: new Date(validUntil!.getTime() + 999),
    status: body.status ?? undefined,
  };
}

/** The discount as its log shows it: the fields of the form, dates as the form writes them. */
function snapshot(code: string, clientName: string, f: DiscountFields): LoggedValues {
  return {
    code,
    client_name: clientName,
    description: f.description,
    discount_percentage: f.discountPercentage,
    valid_from: formatDateTime(f.validFrom),
    valid_until: formatDateTime(f.validUntil),
    status: f.status,
  };
}

async function clientId(tx: Queryable, name: string): Promise<number> {
  const client = await findClientForCode(tx, name);
  if (!client) throw new ApiError(400, unknownClientMessage(name), { errors: { client_name: unknownClientMessage(name) } });
  return client.id;
}

/** Attempts at a fresh code before giving up; with 31^10 codes, even one collision is a freak event. */
const CODE_ATTEMPTS = 5;

export interface DiscountService {
  list(query: DiscountListQuery): Promise<DiscountListResponse>;
  add(body: DiscountBody, who: string | ChangeActor): Promise<DiscountRow>;
  update(id: number, body: DiscountBody, who: string | ChangeActor): Promise<DiscountRow>;
  remove(id: number, who: string | ChangeActor): Promise<DeletedResponse>;
}

/** A code as the wire shows it: valid_from and valid_until in the filters' 'yyyy-MM-dd HH:mm:ss' (UTC). */
export function toDiscountRow(r: DiscountRecord): DiscountRow {
  return {
    id: r.id,
    code: r.code,
    client_name: r.client_name,
    description: r.description,
    discount_percentage: r.discount_percentage,
    valid_from: formatDateTime(r.valid_from),
    valid_until: formatDateTime(r.valid_until),
    status: r.status,
    created_at: r.created_at.toISOString(),
  };
}

export function createDiscountService(db: Database, options: { generateCode?: CodeGenerator } = {}): DiscountService {
  const generateCode = options.generateCode ?? generateClientCode;

  async function row(id: number): Promise<DiscountRow> {
    const found = await findDiscount(db, id);
    if (!found) throw new ApiError(404, discountNotFoundMessage(id));
    return toDiscountRow(found);
  }

  return {
    /**
     * One page of codes, newest first. from_date and to_date bound created_at,
     * the Created At column; the code filter is a case-insensitive prefix:
     * staff paste or start typing a code in any case.
     */
    async list(query) {
      const window = pageWindow(query);
      const { records, total } = await listDiscounts(db, { code: filterText(query.client_code), status: query.status, ...parseDateRange(query) }, window);
      return { result: records.map(toDiscountRow), total_pages: totalPages(total, window.limit), total_records: total };
    },

    async add(body, who) {
      const { username, email } = actorOf(who);
      const input = validateDiscount(body);
      const id = await db.transaction(async (tx) => {
        // A new discount starts active (docs/behaviour.md#discount-management) unless the form says otherwise.
        const fields: DiscountFields = { ...input, clientId: await clientId(tx, input.clientName), status: input.status ?? true };
        for (let attempt = 1; attempt <= CODE_ATTEMPTS; attempt++) {
          const code = generateCode();
          const created = await insertDiscount(tx, code, fields);
          if (created === undefined) continue;
          await logDiscountChange(tx, { username, email, action: 'Create', clientCode: code, previous: null, updated: snapshot(code, input.clientName, fields) });
          return created;
        }
        throw new Error(`No unused client code after ${CODE_ATTEMPTS} attempts: is the code generator random?`);
      });
      return row(id);
    },

    async update(id, body, who) {
      const { username, email } = actorOf(who);
      const input = validateDiscount(body);
      await db.transaction(async (tx) => {
        const previous = await lockDiscount(tx, id);
        if (!previous) throw new ApiError(404, discountNotFoundMessage(id));
        const fields: DiscountFields = { ...input, clientId: await clientId(tx, input.clientName), status: input.status ?? previous.status };
        const before = snapshot(previous.code, previous.clientName, previous);
        const after = snapshot(previous.code, input.clientName, fields);
        // Saving the form unchanged changes nothing, and logs nothing.
        if (JSON.stringify(before) === JSON.stringify(after)) return;
        await updateDiscount(tx, id, fields);
        await logDiscountChange(tx, { username, email, action: 'Update', clientCode: previous.code, previous: before, updated: after });
      });
      return row(id);
    },

    async remove(id, who) {
      const { username, email } = actorOf(who);
      const code = await db.transaction(async (tx) => {
        const previous = await lockDiscount(tx, id);
        if (!previous) throw new ApiError(404, discountNotFoundMessage(id));
        // Submissions that used the code keep their client_code text; their
        // discount_code_id becomes null (ON DELETE SET NULL).
        await deleteDiscount(tx, id);
        await logDiscountChange(tx, { username, email, action: 'Delete', clientCode: previous.code, previous: snapshot(previous.code, previous.clientName, previous), updated: null });
        return previous.code;
      });
      return { status: 'success', message: `Client code ${code} deleted.` };
    },
  };
}
