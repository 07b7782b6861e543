import { Type, type Static } from 'typebox';
import { ListResponse, PageQueryProperties } from '../../http/list-query.ts';
import { FormValue } from '../../http/forms.ts';

/** Wire shapes of the client registry (docs/behaviour.md#client-management, docs/behaviour.md#data-shapes "Client"). */

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const PrefixFilter = (what: string) =>
  Type.Optional(Type.String({ maxLength: 256, description: `${what} starting with this text, ignoring case. Blank means no filter.` }));

export const ClientListQuery = Type.Object(
  {
    list_clients: Type.Optional(
      Type.String({
        maxLength: 16,
        description: 'Present (with any value, e.g. `?list_clients`): answer every client name, sorted, for the discount form\'s picker, and ignore the other parameters',
      }),
    ),
    ...PageQueryProperties,
    client_name: PrefixFilter('Client names'),
    email: PrefixFilter('Email addresses'),
    organization_name: PrefixFilter('Organization names'),
  },
  { additionalProperties: false },
);
export type ClientListQuery = Static<typeof ClientListQuery>;

export const ClientRow = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  email: Nullable(Type.String()),
  phone_number: Nullable(Type.String()),
  alternate_phone: Nullable(Type.String()),
  address: Nullable(Type.String()),
  organization_name: Nullable(Type.String()),
  organization_email: Nullable(Type.String()),
  description: Nullable(Type.String()),
  is_deletable: Type.Boolean({
    description:
      'False while any discount code is issued to the client. Submissions name a client only through one of its codes ' +
      '(tx_submissions and package_submissions by discount_code_id and client_code, failed_txs by client_code), so a client ' +
      'with submissions has codes too, and stays undeletable until those codes are deleted.',
  }),
});
export type ClientRow = Static<typeof ClientRow>;

export const ClientListResponse = ListResponse(ClientRow);
export type ClientListResponse = Static<typeof ClientListResponse>;

export const ClientNamesResponse = Type.Object({
  client_names: Type.Array(Type.String(), { description: 'Every client name, sorted ignoring case' }),
});
export type ClientNamesResponse = Static<typeof ClientNamesResponse>;

const Text = (maxLength: number, description: string) => Type.Optional(FormValue<string>([Type.String({ maxLength })], description));

/**
 * The client form. Every field is checked by the service with the documented
 * messages (docs/behaviour.md#validation-rules), so a missing name answers 'Name is required' rather than a schema
 * error. Blank optional fields are stored as none (null). An update replaces
 * every field: one left out is cleared.
 */
export const ClientBody = Type.Object(
  {
    name: Text(200, "Required and unique ('Name is required')"),
    email: Text(254, "An email address ('Email is invalid')"),
    phone_number: Text(64, "Digits only, at most 20 ('Phone number is invalid')"),
    alternate_phone: Text(64, "Digits only, at most 20 ('Alternate phone number is invalid')"),
    address: Text(1000, 'Postal address'),
    organization_name: Text(200, "The client's organization"),
    organization_email: Text(254, "An email address ('Organization email is invalid')"),
    description: Text(2000, 'Notes about the client'),
  },
  { additionalProperties: false },
);
export type ClientBody = Static<typeof ClientBody>;
