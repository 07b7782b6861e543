import { Type } from 'typebox';

export const StaffMeResponse = Type.Object({
  username: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
  groups: Type.Array(Type.String()),
  is_admin: Type.Boolean({ description: "Member of the administrators' group: may change data" }),
});
