import { Navigate, Route, Routes } from 'react-router';
import { AppsPage } from '../apps/apps-page.tsx';
import { AuditPage } from '../audit/audit-page.tsx';
import { ConnectedAppsPage } from '../connections/connected-apps-page.tsx';
import { EndUserMemoriesPage } from '../end-users/end-user-memories.tsx';
import { EndUsersPage } from '../end-users/end-users-page.tsx';
import { ApiKeysPage } from '../keys/api-keys-page.tsx';
import { MembersPage } from '../members/members-page.tsx';
import { MemoriesPage } from '../memories/memories-page.tsx';
import { PlaygroundPage } from '../playground/playground-page.tsx';
import { ProjectPage } from '../projects/project-page.tsx';
import { ProjectsPage } from '../projects/projects-page.tsx';
import { EmptyState } from '../ui/empty-state.tsx';
import { Page } from '../ui/page.tsx';
import { UsagePage } from '../usage/usage-page.tsx';
import { WebhookPage } from '../webhooks/webhook-page.tsx';
import { WebhooksPage } from '../webhooks/webhooks-page.tsx';
import { Layout } from './layout.tsx';

/** Every page has its own URL under /studio; docs/studio.md lists them. */
export function App() {
  return (
    <Routes>
      <Route element={<Layout />}>
        <Route index element={<Navigate to="/memories" replace />} />
        <Route path="callback" element={<Navigate to="/memories" replace />} />
        <Route path="memories" element={<MemoriesPage />} />
        <Route path="memories/projects/:projectId" element={<MemoriesPage />} />
        <Route path="memories/members/:userId" element={<MemoriesPage />} />
        <Route path="memories/end-users/:externalId" element={<EndUserMemoriesPage />} />
        <Route path="projects" element={<ProjectsPage />} />
        <Route path="projects/:projectId" element={<ProjectPage />} />
        <Route path="members" element={<MembersPage />} />
        <Route path="end-users" element={<EndUsersPage />} />
        <Route path="usage" element={<UsagePage />} />
        <Route path="audit" element={<AuditPage />} />
        <Route path="playground" element={<PlaygroundPage />} />
        <Route path="settings" element={<Navigate to="/settings/api-keys" replace />} />
        <Route path="settings/api-keys" element={<ApiKeysPage />} />
        <Route path="settings/connected-apps" element={<ConnectedAppsPage />} />
        <Route path="settings/apps" element={<AppsPage />} />
        <Route path="settings/webhooks" element={<WebhooksPage />} />
        <Route path="settings/webhooks/:webhookId" element={<WebhookPage />} />
        <Route path="*" element={<NotFound />} />
      </Route>
    </Routes>
  );
}

function NotFound() {
  return (
    <Page title="Page not found">
      <EmptyState title="There is no such page">
        <p>The address may be mistyped, or the page moved. Pick a page from the menu.</p>
      </EmptyState>
    </Page>
  );
}
