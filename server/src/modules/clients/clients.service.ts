import { isDatabaseError, type Database } from '../../db/database.ts';
import { ApiError } from '../../http/errors.ts';
import { FieldErrors, isEmailAddress, optionalText } from '../../http/forms.ts';
import { filterText, pageWindow, totalPages } from '../../http/list-query.ts';
import type { DeletedResponse } from '../../http/forms.ts';
import { actorOf, logClientChange, type ChangeActor } from '../change-logs/change-logs.repository.ts';
import {
  CLIENT_FIELDS,
  clientNames,
  countDiscountCodes,
  deleteClient,
  findClientRow,
  insertClient,
  listClients,
  lockClient,
  updateClient,
  type ClientFields,
} from './clients.repository.ts';
import type { ClientBody, ClientListQuery, ClientListResponse, ClientNamesResponse, ClientRow } from './clients.schemas.ts';

/**
 * The client registry (docs/behaviour.md#client-management and docs/behaviour.md#validation-rules). Every
 * change and its client log entry are written in one transaction.
 */

/** Digits only (docs/behaviour.md#validation-rules); 20 is room for any international number with its prefixes. */
const PHONE = /^[0-9]{1,20}$/;

/** The form's fields checked with the documented messages (docs/behaviour.md#validation-rules), trimmed, blanks as null. */
export function validateClient(body: ClientBody): ClientFields {
  const errors = new FieldErrors();
  const fields: ClientFields = {
    name: optionalText(body.name) ?? '',
    email: optionalText(body.email),
    phone_number: optionalText(body.phone_number),
    alternate_phone: optionalText(body.alternate_phone),
    address: optionalText(body.address),
    organization_name: optionalText(body.organization_name),
    organization_email: optionalText(body.organization_email),
    description: optionalText(body.description),
  };
  if (fields.name === '') errors.add('name', 'Name is required');
  if (fields.email !== null && !isEmailAddress(fields.email)) errors.add('email', 'Email is invalid');
  if (fields.phone_number !== null && !PHONE.test(fields.phone_number)) errors.add('phone_number', 'Phone number is invalid');
  if (fields.alternate_phone !== null && !PHONE.test(fields.alternate_phone)) errors.add('alternate_phone', 'Alternate phone number is invalid');
  if (fields.organization_email !== null && !isEmailAddress(fields.organization_email)) errors.add('organization_email', 'Organization email is invalid');
  errors.throwIfAny();
  return fields;
}

export const duplicateNameMessage = (name: string) => `A client named '${name}' already exists. Client names must be unique.`;
export const clientNotFoundMessage = (id: number) => `Client ${id} does not exist.`;
export const clientInUseMessage = (name: string, codes: number) =>
  `Client '${name}' cannot be deleted while ${codes === 1 ? '1 discount code is' : `${codes} discount codes are`} issued to it. Delete its discount codes first.`;

const snapshot = (fields: ClientFields) => Object.fromEntries(CLIENT_FIELDS.map((f) => [f, fields[f]]));

export interface ClientService {
  list(query: ClientListQuery): Promise<ClientListResponse | ClientNamesResponse>;
  add(body: ClientBody, who: string | ChangeActor): Promise<ClientRow>;
  update(id: number, body: ClientBody, who: string | ChangeActor): Promise<ClientRow>;
  remove(id: number, who: string | ChangeActor): Promise<DeletedResponse>;
}

export function createClientService(db: Database): ClientService {
  /** Runs a change, turning the constraint violations a user can cause into messages they can act on. */
  async function change<T>(fields: ClientFields, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (isDatabaseError(error) && error.code === '23505' && error.constraint === 'clients_name_key') {
        throw new ApiError(409, duplicateNameMessage(fields.name));
      }
      throw error;
    }
  }

  async function row(id: number): Promise<ClientRow> {
    const found = await findClientRow(db, id);
    if (!found) throw new ApiError(404, clientNotFoundMessage(id));
    return found;
  }

  return {
    async list(query) {
      if (query.list_clients !== undefined) return { client_names: await clientNames(db) };
      const window = pageWindow(query);
      const filters = { name: filterText(query.client_name), email: filterText(query.email), organizationName: filterText(query.organization_name) };
      const { records, total } = await listClients(db, filters, window);
      return { result: records, total_pages: totalPages(total, window.limit), total_records: total };
    },

    async add(body, who) {
      const { username, email } = actorOf(who);
      const fields = validateClient(body);
      const id = await change(fields, () =>
        db.transaction(async (tx) => {
          const created = await insertClient(tx, fields);
          await logClientChange(tx, { username, email, action: 'Create', clientName: fields.name, previous: null, updated: snapshot(fields) });
          return created;
        }),
      );
      return row(id);
    },

    async update(id, body, who) {
      const { username, email } = actorOf(who);
      const fields = validateClient(body);
      await change(fields, () =>
        db.transaction(async (tx) => {
          const previous = await lockClient(tx, id);
          if (!previous) throw new ApiError(404, clientNotFoundMessage(id));
          // Saving the form unchanged changes nothing, and logs nothing.
          if (CLIENT_FIELDS.every((f) => previous[f] === fields[f])) return;
          await updateClient(tx, id, fields);
          await logClientChange(tx, { username, email, action: 'Update', clientName: fields.name, previous: snapshot(previous), updated: snapshot(fields) });
        }),
      );
      return row(id);
    },

    async remove(id, who) {
      const { username, email } = actorOf(who);
      const name = await db.transaction(async (tx) => {
        // The row lock makes the check and the delete one step: a discount
        // code being issued to the client meanwhile holds a key-share lock on
        // the row (its foreign key check), so either it commits first and is
        // counted here, or it waits and then fails its own foreign key check.
        const previous = await lockClient(tx, id);
        if (!previous) throw new ApiError(404, clientNotFoundMessage(id));
        const codes = await countDiscountCodes(tx, id);
        if (codes > 0) throw new ApiError(409, clientInUseMessage(previous.name, codes));
        await deleteClient(tx, id);
        await logClientChange(tx, { username, email, action: 'Delete', clientName: previous.name, previous: snapshot(previous), updated: null });
        return previous.name;
      });
      return { status: 'success', message: `Client '${name}' deleted.` };
    },
  };
}
