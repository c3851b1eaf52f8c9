import { type ReactNode, useId } from 'react';
import { formatInteger } from '../ui/format.ts';
import { Cost } from './cost.tsx';
import type { ApiKey, Figures, Member } from './usage-figures.ts';

type Group = Figures & { readonly key: string };

/** Most used first; ties in the API's order (by name). */
const byUse = (groups: readonly Group[]) =>
  [...groups].sort((a, b) => b.requests - a.requests || b.totalTokens - a.totalTokens);

/** A table under its heading; it scrolls sideways on its own on a narrow screen. */
function TableSection(props: { title: string; children: ReactNode }) {
  const headingId = useId();
  return (
    <div className="usage-section">
      <h2 id={headingId}>{props.title}</h2>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: focusable so that a keyboard can scroll it when it is wider than the screen (WCAG 2.1.1). */}
      <section className="table-wrap usage-table-wrap" aria-labelledby={headingId} tabIndex={0}>
        <table>{props.children}</table>
      </section>
    </div>
  );
}

function FigureHeadings() {
  return (
    <>
      <th scope="col" className="number">
        Requests
      </th>
      <th scope="col" className="number">
        Prompt tokens
      </th>
      <th scope="col" className="number">
        Completion tokens
      </th>
      <th scope="col" className="number">
        Total tokens
      </th>
      <th scope="col" className="number">
        Cost
      </th>
    </>
  );
}

function FigureCells(props: { figures: Figures }) {
  const { figures } = props;
  return (
    <>
      <td className="number">{formatInteger(figures.requests)}</td>
      <td className="number">{formatInteger(figures.promptTokens)}</td>
      <td className="number">{formatInteger(figures.completionTokens)}</td>
      <td className="number">{formatInteger(figures.totalTokens)}</td>
      <td className="number">
        <Cost value={figures.costUsd} unpriced={figures.unpricedRequests} />
      </td>
    </>
  );
}

/** A table of groups whose name is their key, as `name` words it, with their figures. */
function NamedGroupsTable(props: {
  title: string;
  heading: string;
  groups: readonly Group[];
  name: (key: string) => ReactNode;
  nameClass: string;
}) {
  return (
    <TableSection title={props.title}>
      <thead>
        <tr>
          <th scope="col">{props.heading}</th>
          <FigureHeadings />
        </tr>
      </thead>
      <tbody>
        {byUse(props.groups).map((group) => (
          <tr key={group.key}>
            <th scope="row" className={props.nameClass}>
              {props.name(group.key)}
            </th>
            <FigureCells figures={group} />
          </tr>
        ))}
      </tbody>
    </TableSection>
  );
}

export function ByModelTable(props: { groups: readonly Group[] }) {
  return (
    <NamedGroupsTable
      title="By model"
      heading="Model"
      groups={props.groups}
      name={(key) => key}
      nameClass="usage-row-name mono"
    />
  );
}

export function ByKeyTable(props: {
  groups: readonly Group[];
  keys: ReadonlyMap<string, ApiKey>;
  /** The organization's members by id; given when the table shows whose keys they are. */
  members: ReadonlyMap<string, Member> | undefined;
}) {
  const { keys, members } = props;
  return (
    <TableSection title="By API key">
      <thead>
        <tr>
          <th scope="col">Key</th>
          {members ? <th scope="col">Member</th> : null}
          <FigureHeadings />
        </tr>
      </thead>
      <tbody>
        {byUse(props.groups).map((group) => {
          const key = keys.get(group.key);
          const member = key ? members?.get(key.userId) : undefined;
          return (
            <tr key={group.key}>
              <th scope="row" className="usage-row-name">
                {key ? (
                  <>
                    <span className="usage-key-name">{key.name}</span>{' '}
                    <span className="mono muted">{key.prefix}…</span>
                    {key.revokedAt ? (
                      <>
                        {' '}
                        <span className="badge">Revoked</span>
                      </>
                    ) : null}
                  </>
                ) : (
                  <>
                    <span className="muted">Deleted key</span>{' '}
                    <span className="mono usage-key-id">{group.key}</span>
                  </>
                )}
              </th>
              {members ? (
                <td>
                  {member ? (
                    (member.name ?? member.email)
                  ) : key ? (
                    <span className="mono usage-key-id">{key.userId}</span>
                  ) : (
                    <span className="muted">Unknown</span>
                  )}
                </td>
              ) : null}
              <FigureCells figures={group} />
            </tr>
          );
        })}
      </tbody>
    </TableSection>
  );
}

/** The kinds of call usage counts, in words: a client's own, or the one that learned from it. */
const KINDS: Record<string, string> = {
  chat: 'Chat',
  extraction: 'Extraction (learning memories)',
};

/**
 * Chat calls apart from the extraction calls the gateway makes after them to learn memories,
 * which cost tokens of their own.
 */
export function ByKindTable(props: { groups: readonly Group[] }) {
  return (
    <NamedGroupsTable
      title="By kind"
      heading="Kind"
      groups={props.groups}
      name={(key) => KINDS[key] ?? key}
      nameClass="usage-row-name"
    />
  );
}
