import { useQuery } from '@tanstack/react-query';
import { Brain, FolderKanban, Pencil, Plus, Trash2 } from 'lucide-react';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { type Project, projectsQuery } from '../api/queries.ts';
import { isManager, useStudio } from '../app/studio-context.tsx';
import { EmptyState } from '../ui/empty-state.tsx';
import { formatDate } from '../ui/format.ts';
import { ErrorNotice, Loading } from '../ui/notice.tsx';
import { Page } from '../ui/page.tsx';
import { CreateProjectDialog } from './project-create-dialog.tsx';
import { DeleteProjectDialog } from './project-delete-dialog.tsx';
import { RenameProjectForm } from './project-rename.tsx';
import { accessLabel } from './projects-queries.ts';
import './projects.css';

/**
 * The organization's projects the person can see. Owners and admins create them, and rename and
 * delete any of them here; a project's own owners do so on the project's page.
 */
export function ProjectsPage() {
  const { api, org } = useStudio();
  const projects = useQuery(projectsQuery(api, org.id));
  const manager = isManager(org);
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<Project>();
  const [status, setStatus] = useState<ReactNode>(null);

  const newProject = manager ? (
    <button type="button" className="button primary" onClick={() => setCreating(true)}>
      <Plus size={18} aria-hidden="true" />
      New project
    </button>
  ) : null;

  return (
    <Page
      title="Projects"
      subtitle="Shared memory pools: every collaborator of a project sees the memories in it."
      actions={projects.data?.length ? newProject : null}
    >
      <div role="status" className="status-line">
        {status ? <p className="notice info">{status}</p> : null}
      </div>
      {projects.isPending ? (
        <Loading what="projects" />
      ) : projects.isError ? (
        <ErrorNotice error={projects.error} onRetry={() => void projects.refetch()} />
      ) : projects.data.length === 0 ? (
        <EmptyState title="No projects yet" icon={<FolderKanban size={32} />}>
          <p>
            A project is a shared memory pool: every collaborator of the project sees the memories
            in it, and its editors add to it. Use one for a team, a product or a customer whose
            context several people or agents share.
          </p>
          {manager ? (
            <>
              <p>Create a project, then add collaborators from its page.</p>
              {newProject}
            </>
          ) : (
            <p>
              Owners and admins of {org.name} create projects. Ask one of them to create one or to
              add you to a project; it shows here once you have access.
            </p>
          )}
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table-stack projects-table">
            <caption className="visually-hidden">Projects in {org.name}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Your access</th>
                <th scope="col">Created</th>
                <th scope="col">Memory pool</th>
                {manager || projects.data.some((p) => p.access === 'owner') ? (
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                ) : null}
              </tr>
            </thead>
            <tbody>
              {projects.data.map((project) => (
                <ProjectRow
                  key={project.id}
                  project={project}
                  manages={manager || project.access === 'owner'}
                  actionsColumn={manager || projects.data.some((p) => p.access === 'owner')}
                  onRenamed={(renamed) => setStatus(`Renamed to “${renamed.name}”.`)}
                  onDelete={() => {
                    setStatus(null);
                    setDeleting(project);
                  }}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <CreateProjectDialog
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(project) => {
          setCreating(false);
          setStatus(
            <>
              <span>“{project.name}” is created, with you as its owner.</span>
              <Link to={`/projects/${project.id}`}>Add collaborators</Link>
            </>,
          );
        }}
      />
      <DeleteProjectDialog
        project={deleting}
        onClose={() => setDeleting(undefined)}
        onDeleted={(project) => {
          setDeleting(undefined);
          setStatus(`“${project.name}” is deleted.`);
        }}
      />
    </Page>
  );
}

function ProjectRow(props: {
  project: Project;
  /** The person may rename and delete it: an owner of the project, or of the organization. */
  manages: boolean;
  /** Whether the table has the actions column (some row has actions). */
  actionsColumn: boolean;
  onRenamed: (project: Project) => void;
  onDelete: () => void;
}) {
  const { project, manages } = props;
  const [renaming, setRenaming] = useState(false);
  const renameButton = useRef<HTMLButtonElement>(null);
  const returnFocus = useRef(false);

  // Back from renaming, focus returns to the button that started it.
  useEffect(() => {
    if (!renaming && returnFocus.current) {
      returnFocus.current = false;
      renameButton.current?.focus();
    }
  }, [renaming]);

  const stopRenaming = () => {
    returnFocus.current = true;
    setRenaming(false);
  };

  return (
    <tr>
      <td data-label="Name" className="project-name">
        {renaming ? (
          <RenameProjectForm
            project={project}
            inline
            onCancel={stopRenaming}
            onDone={(renamed) => {
              stopRenaming();
              props.onRenamed(renamed);
            }}
          />
        ) : (
          <Link to={`/projects/${project.id}`}>{project.name}</Link>
        )}
      </td>
      <td data-label="Your access">
        {project.access ? (
          accessLabel(project.access)
        ) : (
          <span className="muted">Through your role</span>
        )}
      </td>
      <td data-label="Created">{formatDate(project.createdAt)}</td>
      <td data-label="Memory pool">
        <Link to={`/memories/projects/${project.id}`} className="pool-link">
          <Brain size={16} aria-hidden="true" />
          <span>
            Memory pool<span className="visually-hidden"> of {project.name}</span>
          </span>
        </Link>
      </td>
      {manages ? (
        <td className="row-actions">
          {renaming ? null : (
            <button
              ref={renameButton}
              type="button"
              className="button small ghost"
              onClick={() => setRenaming(true)}
            >
              <Pencil size={16} aria-hidden="true" />
              Rename<span className="visually-hidden"> {project.name}</span>
            </button>
          )}
          <button type="button" className="button small ghost danger-text" onClick={props.onDelete}>
            <Trash2 size={16} aria-hidden="true" />
            Delete<span className="visually-hidden"> {project.name}</span>
          </button>
        </td>
      ) : props.actionsColumn ? (
        <td />
      ) : null}
    </tr>
  );
}
