import { type Static, Type } from 'typebox';
import { Value } from 'typebox/value';

/** What `/oauth/me` answers: the OpenID claims and mnemo's organizations. */
const UserInfo = Type.Object({
  sub: Type.String(),
  email: Type.String(),
  name: Type.Optional(Type.String()),
  organizations: Type.Array(
    Type.Object({ id: Type.String(), name: Type.String(), role: Type.String() }),
  ),
});
export type UserInfo = Static<typeof UserInfo>;

export const isUserInfo = (answer: unknown): answer is UserInfo => Value.Check(UserInfo, answer);
