import { Type, type Static } from 'typebox';
import { ListResponse, PageQueryProperties } from '../../http/list-query.ts';

/**
 * Wire shapes of the three change logs (docs/behaviour.md#logs, docs/behaviour.md#data-shapes "Setting
 * log", "Discount log", "Client log"). Each row says who (the staff
 * member's username from their token), what, and when.
 */

export const CHANGE_ACTIONS = ['Create', 'Update', 'Delete'] as const;
export type ChangeAction = (typeof CHANGE_ACTIONS)[number];

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const UsernameFilter = Type.Optional(
  Type.String({ maxLength: 256, description: 'The Email filter: staff whose email (or, without one, username) starts with this text, ignoring case. Blank means no filter.' }),
);
const ActionFilter = Type.Optional(Type.Enum(['All', ...CHANGE_ACTIONS], { description: "Create, Update or Delete; 'All' or absent means any" }));
const JsonText = (description: string) =>
  Nullable(Type.String({ description: `${description}, as JSON text of an object of field names to values; null when there is none` }));

export const SettingLogListQuery = Type.Object(
  {
    ...PageQueryProperties,
    item: Type.Optional(
      Type.String({
        maxLength: 128,
        description: "The setting's item, lowercase snake_case (e.g. fee_rate_floor), matched exactly. 'Fee Rate Floor' is read as fee_rate_floor. Blank means no filter.",
      }),
    ),
    username: UsernameFilter,
  },
  { additionalProperties: false },
);
export type SettingLogListQuery = Static<typeof SettingLogListQuery>;

export const SettingLogRow = Type.Object({
  id: Type.Integer(),
  item: Type.String({ description: 'snake_case; shown title-cased' }),
  username: Type.String(),
  email: Nullable(Type.String({ description: "The staff member's email from their sign-in token; null for a local account and for changes logged before emails were kept" })),
  previous_value: Nullable(Type.String()),
  updated_value: Nullable(Type.String()),
  updated_time: Type.String({ format: 'date-time' }),
});
export type SettingLogRow = Static<typeof SettingLogRow>;
export const SettingLogListResponse = ListResponse(SettingLogRow);
export type SettingLogListResponse = Static<typeof SettingLogListResponse>;

export const DiscountLogListQuery = Type.Object(
  {
    ...PageQueryProperties,
    client_code: Type.Optional(Type.String({ maxLength: 64, description: 'Exact client code. Blank means no filter.' })),
    username: UsernameFilter,
    action: ActionFilter,
  },
  { additionalProperties: false },
);
export type DiscountLogListQuery = Static<typeof DiscountLogListQuery>;

export const DiscountLogRow = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  email: Nullable(Type.String({ description: "The staff member's email from their sign-in token; null for a local account and for changes logged before emails were kept" })),
  action: Type.Enum([...CHANGE_ACTIONS]),
  client_code: Nullable(Type.String()),
  previous_values: JsonText('The discount before the change (fields code, client_name, description, discount_percentage, valid_from, valid_until, status)'),
  updated_values: JsonText('The discount after the change'),
  action_time: Type.String({ format: 'date-time' }),
});
export type DiscountLogRow = Static<typeof DiscountLogRow>;
export const DiscountLogListResponse = ListResponse(DiscountLogRow);
export type DiscountLogListResponse = Static<typeof DiscountLogListResponse>;

export const ClientLogListQuery = Type.Object(
  {
    ...PageQueryProperties,
    username: UsernameFilter,
    client_name: Type.Optional(Type.String({ maxLength: 256, description: 'Client names starting with this text, ignoring case. Blank means no filter.' })),
    action: ActionFilter,
  },
  { additionalProperties: false },
);
export type ClientLogListQuery = Static<typeof ClientLogListQuery>;

export const ClientLogRow = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  email: Nullable(Type.String({ description: "The staff member's email from their sign-in token; null for a local account and for changes logged before emails were kept" })),
  client_name: Nullable(Type.String()),
  action: Type.Enum([...CHANGE_ACTIONS]),
  previous_values: JsonText('The client before the change (fields name, email, phone_number, alternate_phone, address, organization_name, organization_email, description)'),
  updated_values: JsonText('The client after the change'),
  timestamp: Type.String({ format: 'date-time' }),
});
export type ClientLogRow = Static<typeof ClientLogRow>;
export const ClientLogListResponse = ListResponse(ClientLogRow);
export type ClientLogListResponse = Static<typeof ClientLogListResponse>;
