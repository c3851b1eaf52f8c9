import { ApiError, errorFromResponse } from '../api/errors.ts';
import type { Session } from './session.ts';

export type OrgRole = 'owner' | 'admin' | 'member';

/** The OpenID userinfo answer, with mnemo's organizations claim (docs/oauth.md). */
export interface UserInfo {
  readonly sub: string;
  readonly email: string;
  readonly name?: string;
  readonly organizations: readonly { id: string; name: string; role: OrgRole }[];
}

/** Who is signed in and in which organizations: the one place the studio learns its orgs. */
export async function fetchUserInfo(session: Session): Promise<UserInfo> {
  const request = async (token: string) => {
    try {
      return await fetch('/oauth/me', { headers: { authorization: `Bearer ${token}` } });
    } catch {
      throw new ApiError(0, 'network error');
    }
  };
  let response = await request(await session.accessToken());
  if (response.status === 401) response = await request(await session.renew());
  if (!response.ok) throw await errorFromResponse(response);
  return (await response.json()) as UserInfo;
}
