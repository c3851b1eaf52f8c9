import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Brain, ChevronLeft, FolderX, Pencil, Trash2 } from 'lucide-react';
import { type ReactNode, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { data } from '../api/client.ts';
import { collaboratorsQuery, membersQuery, projectsQuery, queryKeys } from '../api/queries.ts';
import { isManager, useStudio } from '../app/studio-context.tsx';
import { displayName } from '../members/members-queries.ts';
import { Dialog } from '../ui/dialog.tsx';
import { EmptyState } from '../ui/empty-state.tsx';
import { formatDate } from '../ui/format.ts';
import { ErrorNotice, Loading } from '../ui/notice.tsx';
import { Page } from '../ui/page.tsx';
import { SavingSelect } from '../ui/saving-select.tsx';
import { AddCollaboratorForm } from './collaborator-add-form.tsx';
import { RemoveCollaboratorDialog } from './collaborator-remove-dialog.tsx';
import { DeleteProjectDialog } from './project-delete-dialog.tsx';
import { RenameProjectForm } from './project-rename.tsx';
import {
  ACCESS,
  accessLabel,
  type Collaborator,
  type Project,
  type ProjectAccess,
} from './projects-queries.ts';
import '../members/people.css';
import { PersonName } from '../members/person-name.tsx';
import './projects.css';

/**
 * One project: who has access and what each access allows. The project's owners, and owners
 * and admins of the organization, add collaborators, change their access and remove them;
 * everyone else reads.
 */
export function ProjectPage() {
  const { projectId = '' } = useParams();
  const { api, org } = useStudio();
  const projects = useQuery(projectsQuery(api, org.id));
  const project = projects.data?.find((p) => p.id === projectId);

  if (projects.isPending) {
    return (
      <ProjectFrame title="Project">
        <Loading what="the project" />
      </ProjectFrame>
    );
  }
  if (projects.isError) {
    return (
      <ProjectFrame title="Project">
        <ErrorNotice error={projects.error} onRetry={() => void projects.refetch()} />
      </ProjectFrame>
    );
  }
  if (!project) {
    return (
      <ProjectFrame title="Project not found">
        <EmptyState title="There is no such project here" icon={<FolderX size={32} />}>
          <p>
            It may have been deleted, belong to another organization than {org.name}, or be one you
            have no access to.
          </p>
          <Link to="/projects" className="button">
            See your projects
          </Link>
        </EmptyState>
      </ProjectFrame>
    );
  }
  return <ProjectDetails key={project.id} project={project} />;
}

function ProjectFrame(props: {
  title: string;
  subtitle?: string;
  actions?: ReactNode;
  children: ReactNode;
}) {
  return (
    <>
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/projects">
          <ChevronLeft size={16} aria-hidden="true" />
          Projects
        </Link>
      </nav>
      <Page title={props.title} subtitle={props.subtitle} actions={props.actions}>
        {props.children}
      </Page>
    </>
  );
}

function ProjectDetails({ project }: { project: Project }) {
  const { api, org, me } = useStudio();
  const navigate = useNavigate();
  const collaborators = useQuery(collaboratorsQuery(api, org.id, project.id));
  const mine = collaborators.data?.find((c) => c.userId === me.sub)?.access;
  const manages = isManager(org) || mine === 'owner';
  const members = useQuery({ ...membersQuery(api, org.id), enabled: manages });
  const [renaming, setRenaming] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [removing, setRemoving] = useState<Collaborator>();
  const [status, setStatus] = useState('');

  return (
    <ProjectFrame
      title={project.name}
      subtitle={`Created ${formatDate(project.createdAt)}`}
      actions={
        <>
          <Link to={`/memories/projects/${project.id}`} className="button">
            <Brain size={18} aria-hidden="true" />
            Memory pool
          </Link>
          {manages ? (
            <>
              <button type="button" className="button" onClick={() => setRenaming(true)}>
                <Pencil size={18} aria-hidden="true" />
                Rename
              </button>
              <button
                type="button"
                className="button danger-outline"
                onClick={() => setDeleting(true)}
              >
                <Trash2 size={18} aria-hidden="true" />
                Delete
              </button>
            </>
          ) : null}
        </>
      }
    >
      <div role="status" className="status-line">
        {status ? <p className="notice info">{status}</p> : null}
      </div>
      <section className="card" aria-labelledby="collaborators-title">
        <h2 id="collaborators-title">Collaborators</h2>
        <p className="muted">
          Everyone here sees the project’s memory pool.{' '}
          {manages
            ? `Owners and admins of ${org.name} manage every project, with or without access of their own.`
            : `The project’s owners, and owners and admins of ${org.name}, decide who has access.`}
        </p>
        {manages && collaborators.data && members.data ? (
          <AddCollaboratorForm
            projectId={project.id}
            members={members.data}
            collaborators={collaborators.data}
            onAdded={(c) =>
              setStatus(`${displayName(c)} is now ${accessLabel(c.access).toLowerCase()}.`)
            }
          />
        ) : null}
        {manages && members.isError ? <ErrorNotice error={members.error} /> : null}
        {collaborators.isPending ? (
          <Loading what="collaborators" />
        ) : collaborators.isError ? (
          <ErrorNotice error={collaborators.error} onRetry={() => void collaborators.refetch()} />
        ) : collaborators.data.length === 0 ? (
          <p className="empty-collaborators">
            No one has access yet. {manages ? 'Add the first collaborator above.' : null}
          </p>
        ) : (
          <CollaboratorsTable
            project={project}
            collaborators={collaborators.data}
            manages={manages}
            onChanged={(c) =>
              setStatus(`${displayName(c)} is now ${accessLabel(c.access).toLowerCase()}.`)
            }
            onRemove={(c) => {
              setStatus('');
              setRemoving(c);
            }}
          />
        )}
        <AccessLegend />
      </section>

      <Dialog open={renaming} title="Rename project" onClose={() => setRenaming(false)}>
        <RenameProjectForm
          project={project}
          onCancel={() => setRenaming(false)}
          onDone={(renamed) => {
            setRenaming(false);
            setStatus(`Renamed to “${renamed.name}”.`);
          }}
        />
      </Dialog>
      <DeleteProjectDialog
        project={deleting ? project : undefined}
        onClose={() => setDeleting(false)}
        onDeleted={() => navigate('/projects', { replace: true })}
      />
      <RemoveCollaboratorDialog
        project={project}
        collaborator={removing}
        onClose={() => setRemoving(undefined)}
        onRemoved={(c) => {
          setRemoving(undefined);
          // Whoever removed their own access (and manages no project by role) can no longer
          // see the project.
          if (c.userId === me.sub && !isManager(org)) navigate('/projects', { replace: true });
          else setStatus(`${displayName(c)} no longer has access.`);
        }}
      />
    </ProjectFrame>
  );
}

function CollaboratorsTable(props: {
  project: Project;
  collaborators: readonly Collaborator[];
  manages: boolean;
  onChanged: (collaborator: Collaborator) => void;
  onRemove: (collaborator: Collaborator) => void;
}) {
  const { api, org } = useStudio();
  const queryClient = useQueryClient();
  const change = useMutation({
    mutationFn: async (grant: { userId: string; access: ProjectAccess }) =>
      (
        await data(
          api.PUT('/api/v1/projects/{projectId}/collaborators/{userId}', {
            params: { path: { projectId: props.project.id, userId: grant.userId } },
            body: { access: grant.access },
          }),
        )
      ).collaborator,
    onSuccess: (collaborator) => props.onChanged(collaborator),
    // Also after a refusal: the select goes back to the access actually held.
    onSettled: () =>
      queryClient.invalidateQueries({
        queryKey: queryKeys.collaborators(org.id, props.project.id),
      }),
  });

  return (
    <>
      <ErrorNotice error={change.error} />
      <div className="table-wrap">
        <table className="table-stack collaborators-table">
          <caption className="visually-hidden">Collaborators of {props.project.name}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Access</th>
              {props.manages ? (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {props.collaborators.map((c) => (
              <tr key={c.userId}>
                <td data-label="Name">
                  <PersonName person={c} />
                </td>
                <td data-label="Email" className="email-cell">
                  {c.email}
                </td>
                <td data-label="Access">
                  {props.manages ? (
                    <AccessSelect
                      collaborator={c}
                      pending={
                        change.isPending && change.variables.userId === c.userId
                          ? change.variables.access
                          : undefined
                      }
                      onChange={(access) => change.mutate({ userId: c.userId, access })}
                    />
                  ) : (
                    <span className={`badge${c.access === 'owner' ? ' accent' : ''}`}>
                      {accessLabel(c.access)}
                    </span>
                  )}
                </td>
                {props.manages ? (
                  <td className="row-actions">
                    <button
                      type="button"
                      className="button small ghost danger-text"
                      onClick={() => props.onRemove(c)}
                    >
                      <Trash2 size={16} aria-hidden="true" />
                      Remove<span className="visually-hidden"> {displayName(c)}</span>
                    </button>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function AccessSelect(props: {
  collaborator: Collaborator;
  /** The access being saved, shown until the answer comes. */
  pending: ProjectAccess | undefined;
  onChange: (access: ProjectAccess) => void;
}) {
  const { collaborator } = props;
  return (
    <SavingSelect
      label={`Access of ${displayName(collaborator)}`}
      value={collaborator.access}
      saving={props.pending}
      options={ACCESS}
      onChange={props.onChange}
    />
  );
}

function AccessLegend() {
  return (
    <>
      <h3 className="legend-title">What each access allows</h3>
      <dl className="legend">
        {ACCESS.map((a) => (
          <div key={a.value}>
            <dt>{a.label}</dt>
            <dd>{a.allows}</dd>
          </div>
        ))}
      </dl>
    </>
  );
}
