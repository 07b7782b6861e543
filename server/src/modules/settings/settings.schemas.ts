import { Type, type Static } from 'typebox';
import { FormValue } from '../../http/forms.ts';

/** Wire shapes of the Settings screen (docs/behaviour.md#settings, docs/behaviour.md#data-shapes "Setting"). */

export const SETTING_TYPES = ['number', 'boolean', 'text', 'email', 'url'] as const;
export type SettingType = (typeof SETTING_TYPES)[number];

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const SettingRow = Type.Object({
  id: Type.Integer(),
  item: Type.String({ description: 'snake_case name, shown title-cased' }),
  value: Type.String({ description: 'Always text; value_type says how to read it' }),
  description: Type.String(),
  value_type: Type.Enum([...SETTING_TYPES], {
    description: "How the value is checked: number (decimal, within min_value and max_value), boolean ('true' or 'false'), text, email or url (http or https)",
  }),
  min_value: Nullable(Type.Number({ description: 'Lowest value allowed, for a number; null: no bound' })),
  max_value: Nullable(Type.Number({ description: 'Highest value allowed, for a number; null: no bound' })),
  required: Type.Boolean({ description: "False for an optional setting: a blank value is allowed and means 'not set'" }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type SettingRow = Static<typeof SettingRow>;

export const SettingsResponse = Type.Object({ result: Type.Array(SettingRow) });
export type SettingsResponse = Static<typeof SettingsResponse>;

export const SettingUpdate = Type.Object(
  {
    id: Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1 }),
    item: Type.String({ maxLength: 128, description: "The setting's item, as the view gave it: a check that the id names the setting meant" }),
    value: Type.Optional(
      FormValue<string | number | boolean>(
        [Type.String({ maxLength: 10_000 }), Type.Number(), Type.Boolean()],
        "The new value, checked against the setting's value_type; blank only for a setting that is not required ('Value is required'). A value equal to the stored one is always accepted",
      ),
    ),
    description: Type.Optional(Type.String({ maxLength: 1000, description: 'The new description; absent leaves it as it is' })),
    // The view's read-only fields, so that a row read from the view can be edited and sent back as it is.
    // They are ignored: a setting's type and bounds are the stored ones, never what a client says they are.
    value_type: Type.Optional(Type.String({ maxLength: 32, description: 'Read-only, as the view gives it; ignored' })),
    min_value: Type.Optional(Nullable(Type.Number({ description: 'Read-only, as the view gives it; ignored' }))),
    max_value: Type.Optional(Nullable(Type.Number({ description: 'Read-only, as the view gives it; ignored' }))),
    required: Type.Optional(Type.Boolean({ description: 'Read-only, as the view gives it; ignored' })),
    updated_at: Type.Optional(Type.String({ maxLength: 64, description: 'Read-only, as the view gives it; ignored' })),
  },
  { additionalProperties: false },
);
export type SettingUpdate = Static<typeof SettingUpdate>;

export const SettingsUpdateBody = Type.Array(SettingUpdate, {
  minItems: 1,
  maxItems: 100,
  description: 'The settings to change, applied together or not at all',
});
export type SettingsUpdateBody = Static<typeof SettingsUpdateBody>;
