import { type Static, Type } from 'typebox';
import { Timestamp, Uuid } from '../platform/api-schemas.ts';
import { PageCursor, PageLimit } from '../platform/paging.ts';

/** A page of the audit log: its size by default, and at most. */
export const AUDIT_PAGE = { default: 50, max: 100 };

export const AuditQuery = Type.Object(
  {
    limit: Type.Optional(PageLimit('Entries', AUDIT_PAGE.default, AUDIT_PAGE.max)),
    cursor: Type.Optional(PageCursor("An earlier page's next: the page after it")),
  },
  { additionalProperties: false },
);
export type AuditQuery = Static<typeof AuditQuery>;

export const AuditEntry = Type.Object(
  {
    id: Uuid('Entry id'),
    at: Timestamp('When it happened'),
    actorId: Uuid(
      "The user who did it; the nil UUID (00000000-0000-0000-0000-000000000000) for an operator's `mnemo admin` command, and for mnemo itself (webhook.disable after 24 hours of failed deliveries)",
    ),
    targetId: Uuid('What it was done to: a member, a project, a webhook or the organization'),
    action: Type.String({
      description:
        'What was done: org.update, org.export, member.add, member.role, member.remove, project.create, project.update, project.delete, collaborator.set, collaborator.remove, api_key.create, api_key.update, api_key.revoke, end_user.register, end_user.update, end_user.erase, app.create, app.update, app.secret, app.revoke, webhook.create, webhook.update, webhook.secret, webhook.delete, webhook.disable, invitation.create, invitation.revoke, invitation.accept, user.erase (by an operator), or a memory operation done for another member (the user override): list, search, get, add, update, delete, export, erase',
      examples: ['member.role'],
    }),
    memoryId: Type.Optional(Uuid('The memory, for memory operations')),
    details: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: 'What changed' }),
    ),
  },
  { $id: 'AuditEntry', additionalProperties: false },
);
export type AuditEntry = Static<typeof AuditEntry>;

export const AuditPage = Type.Object(
  {
    entries: Type.Array(AuditEntry, { description: 'Newest first' }),
    next: Type.Union([Type.String(), Type.Null()], {
      description: 'Pass as cursor for the next page; null on the last page',
    }),
  },
  { description: "A page of the organization's audit log" },
);
export type AuditPage = Static<typeof AuditPage>;
