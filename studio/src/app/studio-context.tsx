import { createContext, useContext } from 'react';
import type { ApiClient } from '../api/client.ts';
import type { Session } from '../auth/session.ts';
import type { OrgRole, UserInfo } from '../auth/userinfo.ts';

export interface Organization {
  readonly id: string;
  readonly name: string;
  /** The signed-in person's role in it. */
  readonly role: OrgRole;
}

export interface Studio {
  readonly session: Session;
  readonly api: ApiClient;
  readonly me: UserInfo;
  /** The organization the pages act in (the switcher's choice). */
  readonly org: Organization;
  readonly setOrg: (orgId: string) => void;
}

export const StudioContext = createContext<Studio | undefined>(undefined);

/** The signed-in studio: session, API client, person and organization. */
export function useStudio(): Studio {
  const studio = useContext(StudioContext);
  if (!studio) throw new Error('useStudio outside a signed-in studio');
  return studio;
}

/** Owners and admins manage members, see the audit log and every key and usage row. */
export const isManager = (org: Organization) => org.role === 'owner' || org.role === 'admin';
