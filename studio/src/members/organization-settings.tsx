import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { data } from '../api/client.ts';
import { type Organization, organizationQuery } from '../api/queries.ts';
import { useStudio } from '../app/studio-context.tsx';
import { ErrorNotice, Loading } from '../ui/notice.tsx';

type UserOverride = Organization['userOverride'];

/** Who may act for other members (the API's user override), as people choose it. */
const USER_OVERRIDE: readonly { value: UserOverride; label: string; means: string }[] = [
  {
    value: 'members',
    label: 'Any member',
    means: 'Every member may read and change the memories of the other members.',
  },
  {
    value: 'admins',
    label: 'Owners and admins only',
    means: 'Members act on their own memories only.',
  },
];

/**
 * The organization's own settings: its name and who may act for other members, which owners
 * and admins change, and whether memory is on, which only operators switch.
 */
export function OrganizationSettings(props: { manager: boolean }) {
  const { api, org } = useStudio();
  const organization = useQuery(organizationQuery(api, org.id));
  const titleId = useId();

  return (
    <section className="card org-settings" aria-labelledby={titleId}>
      <h2 id={titleId}>Organization settings</h2>
      {organization.isPending ? (
        <Loading what="the settings" />
      ) : organization.isError ? (
        <ErrorNotice error={organization.error} onRetry={() => void organization.refetch()} />
      ) : (
        <>
          {props.manager ? (
            <SettingsForm key={organization.data.id} organization={organization.data} />
          ) : (
            <dl className="settings-list">
              <div>
                <dt>Name</dt>
                <dd>{organization.data.name}</dd>
              </div>
              <div>
                <dt>Who may act for other members</dt>
                <dd>
                  {USER_OVERRIDE.find((o) => o.value === organization.data.userOverride)?.label}
                  <span className="settings-hint">
                    {USER_OVERRIDE.find((o) => o.value === organization.data.userOverride)?.means}
                  </span>
                </dd>
              </div>
            </dl>
          )}
          <MemoryStatus organization={organization.data} />
        </>
      )}
    </section>
  );
}

function SettingsForm({ organization }: { organization: Organization }) {
  const { api, org } = useStudio();
  const queryClient = useQueryClient();
  const [name, setName] = useState(organization.name);
  const [userOverride, setUserOverride] = useState(organization.userOverride);
  const [emptyName, setEmptyName] = useState(false);
  const [saved, setSaved] = useState(false);
  const nameId = useId();
  const nameErrorId = useId();
  const overrideHint = useId();
  const save = useMutation({
    mutationFn: async (body: { name?: string; userOverride?: UserOverride }) =>
      (await data(api.PATCH('/api/v1/orgs/{orgId}', { params: { path: { orgId: org.id } }, body })))
        .organization,
    onSuccess: (updated) => {
      queryClient.setQueryData(organizationQuery(api, org.id).queryKey, updated);
      setName(updated.name);
      setUserOverride(updated.userOverride);
      setSaved(true);
    },
  });
  const changed = name.trim() !== organization.name || userOverride !== organization.userOverride;

  return (
    <form
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        const nextName = name.trim();
        setEmptyName(nextName === '');
        if (nextName === '') return;
        setSaved(false);
        save.mutate({
          ...(nextName === organization.name ? {} : { name: nextName }),
          ...(userOverride === organization.userOverride ? {} : { userOverride }),
        });
      }}
    >
      <div className="field org-name-field">
        <label htmlFor={nameId}>Name</label>
        <input
          id={nameId}
          value={name}
          maxLength={200}
          autoComplete="organization"
          aria-invalid={emptyName}
          aria-describedby={emptyName ? nameErrorId : undefined}
          onChange={(event) => {
            setName(event.target.value);
            setSaved(false);
          }}
        />
        {emptyName ? (
          <span id={nameErrorId} className="field-error">
            Give the organization a name.
          </span>
        ) : null}
      </div>
      <fieldset className="field choice-group" aria-describedby={overrideHint}>
        <legend className="field-label">Who may act for other members</legend>
        <p id={overrideHint} className="field-hint">
          Acting for a member means reading or changing their memories through the API’s{' '}
          <code>user</code> parameter, as an assistant serving a whole team does. The audit log
          records each time.
        </p>
        {USER_OVERRIDE.map((option) => (
          <label key={option.value} className="choice">
            <input
              type="radio"
              name="userOverride"
              value={option.value}
              checked={userOverride === option.value}
              onChange={() => {
                setUserOverride(option.value);
                setSaved(false);
              }}
            />
            <span>
              <span className="choice-label">{option.label}</span>
              <span className="choice-means">{option.means}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <ErrorNotice error={save.error} />
      <div className="settings-actions">
        <button type="submit" className="button primary" disabled={save.isPending || !changed}>
          {save.isPending ? 'Saving…' : 'Save settings'}
        </button>
        <span role="status" className="muted">
          {saved ? 'Settings saved.' : ''}
        </span>
      </div>
    </form>
  );
}

function MemoryStatus({ organization }: { organization: Organization }) {
  return (
    <div className="memory-status">
      <div className="memory-status-line">
        <span className="field-label">Memory</span>
        {organization.memoryEnabled ? (
          <span className="badge success">On</span>
        ) : (
          <span className="badge warning">Off</span>
        )}
      </div>
      <p className="field-hint">
        {organization.memoryEnabled
          ? `The memory API serves ${organization.name}.`
          : `The memory API does not serve ${organization.name} for now.`}{' '}
        Operators switch it with <code>mnemo admin org set --memory on|off</code>; in production it
        is the rollout flag of each organization.
      </p>
    </div>
  );
}
