/** The spec's six categories, with the words the studio uses for them. */
export const CATEGORIES = [
  { value: 'identity', label: 'Identity', hint: 'Who the user is: name, role, background' },
  { value: 'preference', label: 'Preference', hint: 'Stated preferences and working style' },
  { value: 'goal', label: 'Goal', hint: 'Things the user is working toward' },
  { value: 'project', label: 'Project', hint: 'Project-specific context' },
  { value: 'relationship', label: 'Relationship', hint: 'Connections to people, teams or systems' },
  { value: 'constraint', label: 'Constraint', hint: 'Hard limits or rules the user has stated' },
] as const;

export type Category = (typeof CATEGORIES)[number]['value'];

/** The filter's value for memories without a category. */
export const UNCATEGORIZED = 'none';

export const categoryLabel = (value: string | undefined) =>
  CATEGORIES.find((c) => c.value === value)?.label ?? 'No category';

export const isCategory = (value: string | null | undefined): value is Category =>
  CATEGORIES.some((c) => c.value === value);
