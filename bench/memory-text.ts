const TOPICS = [
  'prefers answers in British English and short paragraphs',
  'is training for a marathon in the spring and runs four times a week',
  'works on the payments team and owns the reconciliation service',
  'is allergic to peanuts and avoids shellfish',
  'wants weekly summaries on Monday mornings, not daily ones',
  'uses PostgreSQL 16 in production and SQLite for local development',
  'has a daughter, Ines, who starts school in September',
  'must not share customer data outside the EU region',
];

/**
 * Memory text of a realistic length (70 to 100 characters), distinct for every `index` of a
 * `store`, so no two fold into one.
 */
export function memoryText(store: string, index: number): string {
  return `The user ${TOPICS[index % TOPICS.length]} (${store} #${index + 1}).`;
}
